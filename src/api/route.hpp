// What one row of the route table is: method, path pattern, handler, and how
// the router admits the request (access, capability, lane, body). Each route
// group declares its own rows (src/api/<group>/routes.hpp); the router
// (api/router.hpp) joins them into the one table.
#pragma once

#include <optional>
#include <string_view>

#include "authd/guard.hpp"
#include "authd/roles.hpp"
#include "http/request.hpp"
#include "http/response.hpp"
#include "program/app.hpp"
#include "serving/lane.hpp"

namespace authd {

namespace handlers {

// What the router found: the {id} path segment (if any) and, on guarded
// routes, the authenticated principal.
struct RouteContext {
  std::string_view id;
  const Principal* principal = nullptr;
};

// A handler returns a Response or an Error that the router answers with
// http::error_response (http/error_mapping.cpp).
using HandlerResult = Result<http::Response>;

// Every handler's type. The groups' routes.hpp declare theirs with it
// (`Handler signup;`); the definitions spell the signature out.
using Handler = HandlerResult(App& app, const http::Request& request, const RouteContext& context);

}  // namespace handlers

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

// Where a state-changing request may come from (GET never changes state).
enum class Site {
  same,  // this site only, unless it carries a bearer header (api/access_policy.cpp)
  any,   // any site: a POST that does no more than the same GET would (OpenID
         // Connect's authorization request by form post, Core §3.1.2.1)
};

struct Route {
  std::string_view method;
  std::string_view pattern;  // literal segments and "{id}" (one non-empty segment)
  handlers::Handler* handler;
  Access access;
  std::optional<Capability> capability;
  Lane lane = Lane::direct;
  Body body = Body::none;
  Site site = Site::same;
};

}  // namespace authd
