#include "api/router.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <string>

#include "api/admin/routes.hpp"
#include "api/mail_links/routes.hpp"
#include "api/mfa/routes.hpp"
#include "api/oauth/routes.hpp"
#include "api/oidc/routes.hpp"
#include "api/operations/routes.hpp"
#include "api/portal/routes.hpp"
#include "api/records/routes.hpp"
#include "api/request_metrics.hpp"
#include "api/session/routes.hpp"
#include "http/error_response.hpp"
#include "http/forwarded.hpp"
#include "http/request_id.hpp"
#include "program/log.hpp"
#include "serving/metrics.hpp"

namespace authd {
namespace {

using namespace handlers;

// The groups' rows in one array, built at compile time: the lookup below
// indexes it as it did the one hand-written table. No two groups share a
// method and pattern (test/src/router_test.cpp), so the groups' order only
// orders the methods of a 405's Allow header, which each group keeps together.
template <std::size_t... N>
constexpr auto join(const std::array<Route, N>&... groups) {
  std::array<Route, (N + ...)> all{};
  auto out = all.begin();
  ((out = std::ranges::copy(groups, out).out), ...);
  return all;
}

constexpr auto kRoutes = join(session_routes, mail_links_routes, oauth_routes, portal_routes, operations_routes,
                              admin_routes, oidc_routes, mfa_routes, records_routes);

// The rows a path can match, in table order, by the path's first letter:
// most routes differ from the path there, and every request tries the table
// in order (a guarded read of /records went past 60 rows to its own).
struct Candidates {
  std::array<std::uint8_t, kRoutes.size()> rows{};
  std::size_t count = 0;
};
static_assert(kRoutes.size() <= 255);
constexpr auto kCandidatesByLetter = [] {
  std::array<Candidates, 128> table{};
  for (std::size_t letter = 0; letter < table.size(); ++letter) {
    for (std::size_t row = 0; row < kRoutes.size(); ++row) {
      const auto pattern = kRoutes[row].pattern;
      if (pattern.size() > 1 && pattern[1] != '{' && static_cast<std::size_t>(pattern[1]) != letter) continue;
      table[letter].rows[table[letter].count++] = static_cast<std::uint8_t>(row);
    }
  }
  return table;
}();
constexpr auto kEveryRow = [] {
  Candidates all;
  for (std::size_t row = 0; row < kRoutes.size(); ++row) all.rows[all.count++] = static_cast<std::uint8_t>(row);
  return all;
}();

const Candidates& candidates_for(std::string_view path) {
  if (path.size() < 2 || static_cast<unsigned char>(path[1]) >= kCandidatesByLetter.size()) return kEveryRow;
  return kCandidatesByLetter[static_cast<unsigned char>(path[1])];
}

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
  if (auto admitted = admit_site(route, request); !admitted) return std::unexpected(admitted.error());
  RouteContext context{match.id, nullptr};
  if (route.access == Access::open) {
    if (auto admitted = admit_body(route, request); !admitted) return std::unexpected(admitted.error());
    return route.handler(app, request, context);
  }
  auto principal = authenticate(app, request, route);
  if (!principal) return std::unexpected(principal.error());
  context.principal = &*principal;
  // After the token check (the spec: it runs first on protected routes), before any parsing.
  if (auto admitted = admit_body(route, request); !admitted) return std::unexpected(admitted.error());
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
  const auto& candidates = candidates_for(request.path);
  for (std::size_t i = 0; i < candidates.count; ++i) {
    const Route& route = kRoutes[candidates.rows[i]];
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

std::string request_id_for(const http::Request& request) {
  const auto incoming = request.param("HTTP_X_REQUEST_ID");
  bool sane = !incoming.empty() && incoming.size() <= 64;
  for (const char c : incoming) {
    sane = sane && (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == ':' || c == '-');
  }
  return sane ? std::string(incoming) : http::new_request_id();
}

namespace {

// respond() with what every answer gets: its X-Request-Id, and its count and
// time in /metrics.
http::Response finish(App& app, http::Request& request, const RouteMatch& match,
                      std::chrono::steady_clock::time_point started) {
  auto response = respond(app, request, match);
  // The id's last reader is the answer: it moves there (no copy to allocate).
  response.header("X-Request-Id", std::move(request.request_id));
  record_request(match, response.status, started);
  return response;
}

}  // namespace

Prepared prepare(App& app, http::Request&& request) {
  const auto& proxies = app.server.trusted_proxies;
  auto client = http::client_address(proxies, request.remote_addr, request.param("HTTP_X_FORWARDED_FOR"),
                                     request.param("HTTP_FORWARDED"));
  request.remote_addr = std::move(client.address);
  request.from_trusted_proxy = client.from_trusted_proxy;
  request.request_id = request_id_for(request);
  RouteMatch match = resolve(request);
  Lane lane = match.lane();
  const auto started = std::chrono::steady_clock::now();
  Prepared prepared;
  if (lane == Lane::direct || lane == Lane::read || lane == Lane::write) {
    const Store& store = app.core->store();
    if (!store.waits_on_network() && !(lane == Lane::write && store.commits_wait())) {
      // On the thread that answers it anyway: answered here, with no job built.
      prepared.response = finish(app, request, match, started);
      return prepared;
    }
    if (lane == Lane::read) {
      // From the store's memory, on this thread (an event loop): kept unless
      // the store refused a call, in which case nothing of it is kept (no
      // count, no audit line: handlers::audit) and it runs on a store thread.
      MemoryOnly from_memory;
      auto response = respond(app, request, match);
      if (!from_memory.refused()) {
        response.header("X-Request-Id", std::move(request.request_id));
        record_request(match, response.status, started);
        metrics::read_from_memory(true);
        prepared.response = std::move(response);
        return prepared;
      }
      metrics::read_from_memory(false);
    }
    lane = Lane::store;
  }
  prepared.lane = lane;
  prepared.answer = [&app, request = std::move(request), match = std::move(match), started]() mutable {
    return finish(app, request, match, started);
  };
  return prepared;
}

}  // namespace authd
