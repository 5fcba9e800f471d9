// The route table and the router: the rows of every route group
// (src/api/<group>/routes.hpp), joined once at compile time, and the
// dispatcher that resolves a request, applies the access policy
// (api/access_policy.hpp) and runs the handler.
#pragma once

#include <optional>
#include <span>
#include <string>

#include "api/access_policy.hpp"
#include "api/route.hpp"
#include "serving/lane.hpp"

namespace authd {

// Every group's rows, in the router's order of the groups.
std::span<const Route> route_table();

// What the router found for a request: the route (or the error that no
// route gives: 404, 405 with the allowed methods) and its {id} segment.
struct RouteMatch {
  const Route* route = nullptr;  // null for the authorizer role and for errors
  bool authorizer = false;       // FCGI_ROLE=AUTHORIZER: the access rules decide, whatever the path
  std::string id;                // the {id} path segment, if the pattern has one
  std::optional<Error> error;    // set when no route takes the request
  // The authorizer role reads (the guard); an error needs no store at all.
  Lane lane() const noexcept { return route ? route->lane : Lane::read; }
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

// resolve + respond for the server: a route of the direct, write or read lane
// is answered at once (Prepared::response), any other becomes a job for its
// lane that the request moves into. When the store waits on the network, a
// direct or write route becomes a job for the store threads (Lane::store), as
// does a write route when the store's commits wait on the disk
// (Store::commits_wait: LMDB with sync_writes); a read route is
// tried here from the store's memory (MemoryOnly): answered at once when the
// store could answer it, else a job for the store threads, as if never tried. Sets request.request_id, adds the X-Request-Id header
// to the answer and counts it for /metrics (api/request_metrics.hpp).
Prepared prepare(App& app, http::Request&& request);

}  // namespace authd
