// The one route table, and the dispatcher that applies the guard.
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include "program/app.hpp"
#include "authd/roles.hpp"
#include "api/handlers.hpp"
#include "http/request.hpp"
#include "http/response.hpp"
#include "serving/lane.hpp"

namespace authd {

enum class Access {
  open,    // no credentials (signup, signin, oauth)
  bearer,  // Authorization: Bearer, re-authenticated; plus `capability` if set
  admin,   // role admin, by bearer token or the `auth` cookie (cookie: no cross-site changes)
  session, // as bearer, or the `auth` cookie (the pages); a cookie-authenticated
           // state change must come from the same site (src/http/cross_site.hpp)
  enrol,   // as session, but exempt from mfa_required_roles: what a user of such
           // a role needs to enrol a second factor (/me/mfa/*, GET /me, /signout)
};

// What a route reads from the request body.
enum class Body {
  none,  // nothing (a body is ignored)
  json,  // a JSON document: a non-empty body must come as Content-Type: application/json
  form,  // an OAuth form (POST /token): application/x-www-form-urlencoded only
};

struct Route {
  std::string_view method;
  std::string_view pattern;  // literal segments and "{id}" (one non-empty segment)
  handlers::HandlerResult (*handler)(App&, const http::Request&, const handlers::RouteContext&);
  Access access;
  std::optional<Capability> capability;
  Lane lane = Lane::direct;
  Body body = Body::none;
};

std::span<const Route> route_table();

// Whether a route's method changes state (anything but GET and "*", which
// only the access check /auth/check uses: it judges another request).
bool changes_state(const Route& route) noexcept;

// The checks every request passes before its guard and handler, from the
// route's row alone (login CSRF, issue 23 class 1):
//  - a route that changes state (and so every route that sets the `auth`
//    or `refresh` cookie: /signup, /signin, /signin/mfa, /signin/passkey/*,
//    /token/refresh, ...) refuses cross-site requests (http/cross_site.hpp),
//    unless they carry a bearer token in the Authorization header (which no
//    browser sends by itself, nor for another site's page without a CORS
//    preflight authd never grants);
//  - a non-empty body of a Body::json route must be application/json
//    (unsupported_type, 415), before anything parses it.
// respond() runs admit_site first and admit_body just before the handler
// (after the guard on guarded routes: the spec's token check comes first).
// Errors: cross_site, unsupported_type.
Result<void> admit(const Route& route, const http::Request& request);
Result<void> admit_site(const Route& route, const http::Request& request);
Result<void> admit_body(const Route& route, const http::Request& request);

// What the router found for a request: the route (or the error that no
// route gives: 404, 405 with the allowed methods) and its {id} segment.
struct RouteMatch {
  const Route* route = nullptr;  // null for the authorizer role and for errors
  bool authorizer = false;       // FCGI_ROLE=AUTHORIZER: the access rules decide, whatever the path
  std::string id;                // the {id} path segment, if the pattern has one
  std::optional<Error> error;    // set when no route takes the request
  Lane lane() const noexcept { return route ? route->lane : Lane::direct; }
};

// Resolves the route of a request: once per request.
RouteMatch resolve(const http::Request& request);

// Runs the guard and the handler of a resolved route and maps any Error to a
// response. Never throws.
http::Response respond(App& app, const http::Request& request, const RouteMatch& match);

// The request's X-Request-Id: a sane incoming one (1-64 of A-Z a-z 0-9 . _ : -,
// as nginx's $request_id or a load balancer sets it) is kept so that the
// audit line and the web server's log can be joined; anything else is
// replaced by 16 random hex characters. It identifies, never authorizes.
std::string request_id_for(const http::Request& request);

// resolve + respond for the server: a route of the direct lane is answered
// at once (Prepared::response), any other becomes a job for its lane that the
// request moves into. Sets request.request_id, adds the X-Request-Id header
// to the answer and counts it for /metrics.
Prepared prepare(App& app, http::Request&& request);

}  // namespace authd
