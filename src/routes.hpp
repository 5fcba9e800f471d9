// The one route table, and the dispatcher that applies the guard.
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include "app.hpp"
#include "authd/roles.hpp"
#include "handlers/handlers.hpp"
#include "http/request.hpp"
#include "http/response.hpp"

namespace authd {

enum class Access {
  open,    // no credentials (signup, signin, oauth)
  bearer,  // Authorization: Bearer, re-authenticated; plus `capability` if set
};

// Where a request runs. Password hashing and calls to identity providers are
// slow, so they run on their own bounded worker pools: a flood of sign-ins
// or a slow provider can never take every thread from guarded requests.
enum class Lane {
  direct,    // on the accepting thread (token checks, records)
  password,  // argon2id: signup, signin
  upstream,  // outgoing HTTP to an identity provider: oauth
};

struct Route {
  std::string_view method;
  std::string_view pattern;  // literal segments and "{id}" (one non-empty segment)
  handlers::HandlerResult (*handler)(App&, const http::Request&, const handlers::RouteContext&);
  Access access;
  std::optional<Capability> capability;
  Lane lane = Lane::direct;
};

std::span<const Route> route_table();

// The lane of the route `request` addresses (direct for unknown routes).
Lane lane_for(const http::Request& request);

// Finds the route, runs the guard and the handler, and maps any Error to a
// response. Never throws.
http::Response dispatch(App& app, const http::Request& request);

}  // namespace authd
