#include "api/routes.hpp"

#include <array>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <string>

#include "authd/clock.hpp"
#include "authd/text.hpp"
#include "http/request_id.hpp"
#include "http/error_response.hpp"
#include "http/query.hpp"
#include "http/cross_site.hpp"
#include "http/forwarded.hpp"
#include "program/log.hpp"
#include "serving/metrics.hpp"

namespace authd {
namespace {

using namespace handlers;
using enum Capability;

constexpr std::array kRoutes{
    Route{"POST", "/signup", signup, Access::open, std::nullopt, Lane::password, Body::json},
    Route{"POST", "/signup/invitation", accept_invitation, Access::open, std::nullopt, Lane::password, Body::json},
    Route{"POST", "/signin", signin, Access::open, std::nullopt, Lane::password},
    // forgot waits out a fixed answer time: off the direct lane.
    Route{"POST", "/password/forgot", password_forgot, Access::open, std::nullopt, Lane::upstream, Body::json},
    Route{"POST", "/password/reset", password_reset, Access::open, std::nullopt, Lane::password, Body::json},
    Route{"GET", "/email/verify", email_verify_link, Access::open, std::nullopt},
    Route{"POST", "/email/verify", email_verify, Access::open, std::nullopt, Lane::direct, Body::json},
    // resend waits out a fixed answer time: off the direct lane.
    Route{"POST", "/email/verify/resend", email_verify_resend, Access::open, std::nullopt, Lane::upstream, Body::json},
    Route{"GET", "/oauth", oauth, Access::open, std::nullopt, Lane::upstream},
    Route{"*", "/auth/check", auth_check, Access::open, std::nullopt},
    Route{"GET", "/auth/providers", auth_providers, Access::open, std::nullopt},
    Route{"GET", "/auth/return", return_to, Access::open, std::nullopt},
    Route{"GET", "/auth/portal", portal_redirect, Access::open, std::nullopt},
    Route{"GET", "/healthz", healthz, Access::open, std::nullopt},
    Route{"GET", "/readyz", readyz, Access::open, std::nullopt},
    Route{"GET", "/metrics", metrics_text, Access::open, std::nullopt},
    Route{"GET", "/admin/users", admin_list_users, Access::admin, std::nullopt},
    Route{"GET", "/admin/users/{id}", admin_get_user, Access::admin, std::nullopt},
    Route{"PUT", "/admin/users/{id}", admin_set_role, Access::admin, std::nullopt, Lane::direct, Body::json},
    Route{"DELETE", "/admin/users/{id}", admin_delete_user, Access::admin, std::nullopt},
    Route{"POST", "/admin/users/{id}/signout", admin_sign_out_user, Access::admin, std::nullopt},
    Route{"GET", "/admin/clients", admin_list_clients, Access::admin, std::nullopt},
    Route{"POST", "/admin/clients", admin_add_client, Access::admin, std::nullopt, Lane::direct, Body::json},
    Route{"GET", "/admin/clients/{id}", admin_get_client, Access::admin, std::nullopt},
    Route{"DELETE", "/admin/clients/{id}", admin_remove_client, Access::admin, std::nullopt},
    Route{"POST", "/admin/clients/{id}/secret", admin_rotate_client_secret, Access::admin, std::nullopt},
    Route{"GET", "/admin/invitations", admin_list_invitations, Access::admin, std::nullopt},
    Route{"POST", "/admin/invitations", admin_create_invitation, Access::admin, std::nullopt, Lane::direct, Body::json},
    Route{"DELETE", "/admin/invitations/{id}", admin_revoke_invitation, Access::admin, std::nullopt},
    Route{"GET", "/.well-known/jwks.json", jwks, Access::open, std::nullopt},
    Route{"GET", "/.well-known/openid-configuration", openid_configuration, Access::open, std::nullopt},
    Route{"GET", "/authorize", oidc_authorize, Access::open, std::nullopt},
    Route{"POST", "/authorize/consent", oidc_consent, Access::open, std::nullopt, Lane::direct, Body::form},
    Route{"POST", "/token", oidc_token, Access::open, std::nullopt, Lane::direct, Body::form},
    Route{"GET", "/userinfo", oidc_userinfo, Access::open, std::nullopt},
    Route{"POST", "/userinfo", oidc_userinfo, Access::open, std::nullopt},
    Route{"GET", "/end_session", oidc_end_session, Access::open, std::nullopt},
    Route{"GET", "/openapi.json", openapi_document, Access::open, std::nullopt},
    Route{"POST", "/token/refresh", token_refresh, Access::open, std::nullopt, Lane::direct, Body::json},
    Route{"POST", "/signout", signout, Access::enrol, std::nullopt},
    Route{"POST", "/signout/all", signout_all, Access::enrol, std::nullopt},
    Route{"GET", "/me", me, Access::enrol, std::nullopt},
    Route{"POST", "/signin/mfa", signin_mfa, Access::open, std::nullopt, Lane::direct, Body::json},
    Route{"GET", "/me/clients", my_clients, Access::session, std::nullopt},
    Route{"DELETE", "/me/clients/{id}", revoke_my_client, Access::session, std::nullopt},
    Route{"GET", "/me/mfa", mfa_status, Access::enrol, std::nullopt},
    Route{"POST", "/me/mfa/totp", mfa_totp_begin, Access::enrol, std::nullopt, Lane::direct, Body::json},
    Route{"DELETE", "/me/mfa/totp", mfa_totp_remove, Access::enrol, std::nullopt, Lane::direct, Body::json},
    Route{"POST", "/me/mfa/totp/confirm", mfa_totp_confirm, Access::enrol, std::nullopt, Lane::direct, Body::json},
    Route{"POST", "/me/mfa/webauthn/register/begin", passkey_register_begin, Access::enrol, std::nullopt, Lane::direct, Body::json},
    Route{"POST", "/me/mfa/webauthn/register/finish", passkey_register_finish, Access::enrol, std::nullopt, Lane::direct, Body::json},
    Route{"DELETE", "/me/mfa/webauthn/{id}", passkey_remove, Access::enrol, std::nullopt, Lane::direct, Body::json},
    Route{"POST", "/signin/mfa/webauthn/begin", signin_mfa_webauthn_begin, Access::open, std::nullopt, Lane::direct, Body::json},
    Route{"GET", "/signin/passkey", passkey_signin_status, Access::open, std::nullopt},
    Route{"POST", "/signin/passkey/begin", passkey_signin_begin, Access::open, std::nullopt, Lane::direct, Body::json},
    Route{"POST", "/signin/passkey/finish", passkey_signin_finish, Access::open, std::nullopt, Lane::direct, Body::json},
    Route{"PUT", "/me/password", change_password, Access::session, std::nullopt, Lane::password, Body::json},
    Route{"PUT", "/me/email", change_email, Access::session, std::nullopt, Lane::password, Body::json},
    Route{"GET", "/records", list_records, Access::bearer, std::nullopt},
    Route{"POST", "/records", create_record, Access::bearer, create, Lane::direct, Body::json},
    Route{"GET", "/records/{id}", get_record, Access::bearer, read},
    Route{"PUT", "/records/{id}", update_record, Access::bearer, update, Lane::direct, Body::json},
    Route{"DELETE", "/records/{id}", delete_record, Access::bearer, delete_},
};

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

// The admin routes take a bearer token or, for the browser admin page, the
// HttpOnly `auth` cookie. Errors: as the guard; not_permitted for another role
// or a cross-site change.
Result<Principal> admin_principal(App& app, const http::Request& request, const Route& route) {
  std::string authorization(request.authorization());
  if (authorization.empty()) {
    const auto cookie = http::cookie_value(request.param("HTTP_COOKIE"), "auth");
    if (!cookie.empty()) {
      if (auto same = http::refuse_cross_site_change(request); !same) {
        return std::unexpected(same.error());
      }
      authorization = "Bearer " + std::string(cookie);
    }
  }
  auto principal = app.core->guard().check(authorization, std::nullopt, unix_now());
  if (!principal) return principal;
  if (principal->user().role != Role::admin) {
    handlers::audit(app, request, {.event = "denied", .username = principal->user().username, .outcome = "refused",
                                   .reason = "admin role required for " + std::string(route.pattern)});
    return fail(Errc::not_permitted, "admin role required");
  }
  return principal;
}

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
  // RFC 6750 §2.3 tokens in URIs end up in logs and histories: refuse the
  // query-parameter method outright (and so any second credential with it).
  if (text::query_value(request.query, "access_token")) {
    return fail(Errc::malformed_credentials, "access_token in the query string is not accepted");
  }
  std::string_view authorization = request.authorization();
  std::string from_cookie;
  const bool session = route.access == Access::session || route.access == Access::enrol;
  if (session && authorization.empty()) {
    const auto cookie = http::cookie_value(request.param("HTTP_COOKIE"), "auth");
    if (!cookie.empty()) {
      // The browser sends the cookie by itself, whoever made the page: a
      // state change on its strength must come from our own site (CSRF).
      if (auto same = http::refuse_cross_site_change(request); !same) return std::unexpected(same.error());
      from_cookie = "Bearer " + std::string(cookie);
      authorization = from_cookie;
    }
  }
  auto principal = route.access == Access::admin   ? admin_principal(app, request, route)
                   : route.access == Access::enrol ? app.core->guard().check_for_enrolment(authorization, unix_now())
                                                   : app.core->guard().check(authorization, route.capability, unix_now());
  if (!principal) {
    if (principal.error().code != Errc::not_permitted || route.access != Access::admin) {
      // A valid token refused (capability, second factor) is named.
      handlers::audit(app, request, {.event = "denied", .username = principal.error().username, .outcome = "refused",
                                     .reason = std::string(to_string(principal.error().code)) + " on " +
                                               std::string(route.pattern)});
    }
    return std::unexpected(principal.error());
  }
  context.principal = &*principal;
  // After the token check (the spec: it runs first on protected routes), before any parsing.
  if (auto admitted = admit_body(route, request); !admitted) return std::unexpected(admitted.error());
  return route.handler(app, request, context);
}

}  // namespace

std::span<const Route> route_table() { return kRoutes; }

bool changes_state(const Route& route) noexcept { return route.method != "GET" && route.method != "*"; }

// A bearer token in the Authorization header: a browser never attaches one by
// itself, and a page of another site cannot make it send one without a CORS
// preflight, which authd never grants. (Basic credentials, by contrast, a
// browser caches and sends to any request.)
static bool bearer_header(const http::Request& request) {
  const auto authorization = request.authorization();
  return authorization.size() > 7 && text::iequals(authorization.substr(0, 7), "Bearer ");
}

Result<void> admit_site(const Route& route, const http::Request& request) {
  // Whatever else authenticates the request (nothing, the cookie, Basic, a
  // token in the body): the table, not each handler, keeps other sites out.
  if (changes_state(route) && !bearer_header(request)) return http::refuse_cross_site(request);
  return {};
}

Result<void> admit_body(const Route& route, const http::Request& request) {
  if (route.body == Body::json && !request.body.empty()) return http::require_json_body(request);
  if (route.body == Body::form && !request.body.empty()) return http::require_form_body(request);
  return {};
}

Result<void> admit(const Route& route, const http::Request& request) {
  if (auto same = admit_site(route, request); !same) return same;
  return admit_body(route, request);
}

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
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - started;
  const std::string_view route = match.route       ? match.route->pattern
                                 : match.authorizer ? std::string_view("authorizer")
                                                    : std::string_view("unmatched");
  metrics::request_done(route, response.status, took.count());
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
  const Lane lane = match.lane();
  const auto started = std::chrono::steady_clock::now();
  Prepared prepared;
  if (lane == Lane::direct) {
    // On the thread that answers it anyway: answered here, with no job built.
    prepared.response = finish(app, request, match, started);
    return prepared;
  }
  prepared.lane = lane;
  prepared.answer = [&app, request = std::move(request), match = std::move(match), started]() mutable {
    return finish(app, request, match, started);
  };
  return prepared;
}

}  // namespace authd
