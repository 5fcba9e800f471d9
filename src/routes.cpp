#include "routes.hpp"

#include <array>
#include <string>

#include "authd/clock.hpp"
#include "authd/text.hpp"
#include "http/error_response.hpp"
#include "log.hpp"

namespace authd {
namespace {

using namespace handlers;
using enum Capability;

constexpr std::array kRoutes{
    Route{"POST", "/signup", signup, Access::open, std::nullopt, Lane::password},
    Route{"POST", "/signin", signin, Access::open, std::nullopt, Lane::password},
    Route{"GET", "/oauth", oauth, Access::open, std::nullopt, Lane::upstream},
    Route{"*", "/auth/check", auth_check, Access::open, std::nullopt},
    Route{"GET", "/auth/providers", auth_providers, Access::open, std::nullopt},
    Route{"GET", "/auth/return", return_to, Access::open, std::nullopt},
    Route{"GET", "/auth/portal", portal_redirect, Access::open, std::nullopt},
    Route{"GET", "/records", list_records, Access::bearer, std::nullopt},
    Route{"POST", "/records", create_record, Access::bearer, create},
    Route{"GET", "/records/{id}", get_record, Access::bearer, read},
    Route{"PUT", "/records/{id}", update_record, Access::bearer, update},
    Route{"DELETE", "/records/{id}", delete_record, Access::bearer, delete_},
};

// Matches `path` against `pattern` segment by segment; on success `id`
// receives the {id} segment (if the pattern has one).
bool match_path(std::string_view pattern, std::string_view path, std::string_view& id) {
  while (!pattern.empty() && !path.empty()) {
    if (pattern.front() != '/' || path.front() != '/') return false;
    pattern.remove_prefix(1);
    path.remove_prefix(1);
    const auto pattern_end = std::min(pattern.find('/'), pattern.size());
    const auto path_end = std::min(path.find('/'), path.size());
    const auto expected = pattern.substr(0, pattern_end);
    const auto actual = path.substr(0, path_end);
    if (expected == "{id}") {
      if (actual.empty()) return false;
      id = actual;
    } else if (expected != actual) {
      return false;
    }
    pattern.remove_prefix(pattern_end);
    path.remove_prefix(path_end);
  }
  return pattern.empty() && path.empty();
}

// HEAD is answered wherever GET is (RFC 9110 §9.3.2); the web server drops the body.
std::string_view matching_method(std::string_view method) { return method == "HEAD" ? "GET" : method; }

handlers::HandlerResult run(App& app, const http::Request& request, const RouteMatch& match) {
  if (match.authorizer) return authorizer(app, request, RouteContext{});
  if (match.error) return std::unexpected(*match.error);
  const Route& route = *match.route;
  RouteContext context{match.id, nullptr};
  if (route.access == Access::open) return route.handler(app, request, context);
  // RFC 6750 §2.3 tokens in URIs end up in logs and histories: refuse the
  // query-parameter method outright (and so any second credential with it).
  if (text::query_value(request.query, "access_token")) {
    return fail(Errc::malformed_credentials, "access_token in the query string is not accepted");
  }
  auto principal = app.core->guard().check(request.authorization(), route.capability, unix_now());
  if (!principal) return std::unexpected(principal.error());
  context.principal = &*principal;
  return route.handler(app, request, context);
}

}  // namespace

std::span<const Route> route_table() { return kRoutes; }

RouteMatch resolve(const http::Request& request) {
  RouteMatch match;
  if (request.param("FCGI_ROLE") == "AUTHORIZER") {
    match.authorizer = true;
    return match;
  }
  const auto method = matching_method(request.method);
  std::vector<std::string> allowed;
  for (const auto& route : kRoutes) {
    std::string_view id;
    if (!match_path(route.pattern, request.path, id)) continue;
    if (route.method != "*" && route.method != method) {
      allowed.emplace_back(route.method);
      if (route.method == "GET") allowed.emplace_back("HEAD");
      continue;
    }
    match.route = &route;
    match.id = std::string(id);
    return match;
  }
  match.error = allowed.empty() ? Error(Errc::not_found, "no route for " + request.path) : Error::methods(std::move(allowed));
  return match;
}

http::Response respond(App& app, const http::Request& request, const RouteMatch& match) {
  try {
    auto response = run(app, request, match);
    if (response) return std::move(*response);
    if (log::enabled(log::Level::debug)) {
      log::debug(request.method + " " + request.path + ": " + std::string(to_string(response.error().code)) +
                 ": " + response.error().message);
    }
    return http::error_response(response.error());
  } catch (const std::exception& e) {
    return http::error_response(Error(Errc::internal, std::string("exception: ") + e.what()));
  } catch (...) {
    return http::error_response(Error(Errc::internal, "unknown exception"));
  }
}

Prepared prepare(App& app, http::Request request) {
  const auto& proxies = app.server.trusted_proxies;
  request.from_trusted_proxy = proxies.trusts(request.remote_addr);
  request.remote_addr = http::client_address(proxies, request.remote_addr, request.param("HTTP_X_FORWARDED_FOR"),
                                             request.param("HTTP_FORWARDED"));
  RouteMatch match = resolve(request);
  const Lane lane = match.lane();
  return Prepared{lane, [&app, request = std::move(request), match = std::move(match)] {
                    return respond(app, request, match);
                  }};
}

}  // namespace authd
