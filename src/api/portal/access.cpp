// Access decisions for OTHER applications behind the web server:
//  - the FastCGI Authorizer role (lighttpd "mode" => "authorizer", Apache
//    mod_authnz_fcgi): 200 + Variable-AUTH_USER / Variable-AUTH_ROLE grants;
//  - GET /auth/check for forward-auth proxies (nginx auth_request; Traefik,
//    Caddy): the original request in X-Original-Method / X-Original-URI (or
//    X-Forwarded-Method / X-Forwarded-Uri), believed only from trusted_proxies
//    and required (never "assume GET"); 204 + X-Auth-User / X-Auth-Role grants.
// Refusals are the same 401/403 {"error":"Access Denied"} as our own routes.
#include "authd/access_rules.hpp"
#include "authd/request_path.hpp"
#include "api/audit_request.hpp"
#include "api/portal/routes.hpp"
#include "http/query.hpp"

namespace authd::handlers {
namespace {

constexpr std::string_view kAuthCookie = "auth";

// The decision for `method` + a canonical `path` with the request's credentials.
// A valid token refused (role, second factor) leaves an audit line naming
// its user; anonymous refusals do not (every unauthenticated fetch of a
// protected file would).
Result<std::optional<Principal>> decide(App& app, const http::Request& request, std::string_view method,
                                        std::string_view path, AccessPoint at) {
  auto decision = app.core->check_request(method, path, request.authorization(),
                                          http::cookie_value(request.param("HTTP_COOKIE"), kAuthCookie), at);
  if (!decision && !decision.error().username.empty()) {
    audit(app, request, {.event = "denied", .username = decision.error().username, .outcome = "refused",
                         .reason = std::string(to_string(decision.error().code)) +
                                   (at == AccessPoint::authorizer ? " at the authorizer" : " at /auth/check")});
  }
  return decision;
}

// The path the web server will serve, canonical, after its rewrites: an
// operator's rewrite of a public prefix into a protected tree must be judged
// by the protected path. The raw REQUEST_URI (always the client's) must be
// unambiguous (request_path.hpp); then the first of:
//  - AUTHD_SERVED_PATH: Apache's own decoded path after mod_rewrite [PT] and
//    aliases, which conf/apache/authorizer.conf copies from %{REQUEST_URI}
//    (mod_authnz_fcgi drops SCRIPT_NAME and PATH_INFO); not decoded again;
//  - SCRIPT_NAME + PATH_INFO, a server's decoded path, not decoded again;
//  - REDIRECT_URI: lighttpd's authorizer passes no SCRIPT_NAME, and its
//    rewritten target (raw, as mod_rewrite left it) only when it differs.
// A client can set none of them (its headers arrive as HTTP_*).
Result<std::string> served_path(const http::Request& request) {
  auto raw = canonical_uri_path(request.param("REQUEST_URI"));
  if (!raw) return raw;
  if (const auto served = request.param("AUTHD_SERVED_PATH"); !served.empty()) return canonical_path(served, false);
  const auto script_name = request.param("SCRIPT_NAME");
  if (script_name.empty()) {
    const auto rewritten = request.param("REDIRECT_URI");
    return rewritten.empty() ? raw : canonical_uri_path(rewritten);
  }
  std::string server_path(script_name);
  server_path += request.param("PATH_INFO");
  return canonical_path(server_path, false);
}

// A forwarded value that two header names may carry (nginx's X-Original-*,
// Traefik's and Caddy's X-Forwarded-*): one of them, or both equal.
Result<std::string_view> forwarded_value(const http::Request& request, const char* original, const char* forwarded,
                                         std::string_view what) {
  const auto a = request.param(original), b = request.param(forwarded);
  if (!a.empty() && !b.empty() && a != b) return fail(Errc::invalid_input, "two different original " + std::string(what) + "s");
  if (a.empty() && b.empty()) return fail(Errc::invalid_input, "the original " + std::string(what) + " is required");
  return a.empty() ? b : a;
}

}  // namespace

HandlerResult authorizer(App& app, const http::Request& request, const RouteContext&) {
  auto path = served_path(request);
  if (!path) return std::unexpected(path.error());
  auto granted = decide(app, request, request.method, *path, AccessPoint::authorizer);
  if (!granted) return std::unexpected(granted.error());
  http::Response response;
  response.status = 200;
  if (*granted) {
    response.header("Variable-AUTH_USER", (*granted)->user().username)
        .header("Variable-AUTH_ROLE", std::string(to_string((*granted)->user().role)));
  }
  return response;
}

HandlerResult auth_check(App& app, const http::Request& request, const RouteContext&) {
  // Anyone may send X-Original-URI: only a configured proxy's copy says what
  // the client asked for.
  if (!request.from_trusted_proxy) {
    return fail(Errc::not_permitted, "GET /auth/check from an address outside trusted_proxies");
  }
  auto uri = forwarded_value(request, "HTTP_X_ORIGINAL_URI", "HTTP_X_FORWARDED_URI", "URI");
  if (!uri) return std::unexpected(uri.error());
  auto method = forwarded_value(request, "HTTP_X_ORIGINAL_METHOD", "HTTP_X_FORWARDED_METHOD", "method");
  if (!method) return std::unexpected(method.error());
  auto path = canonical_uri_path(*uri);
  if (!path) return std::unexpected(path.error());
  auto granted = decide(app, request, *method, *path, AccessPoint::forward_auth);
  if (!granted) return std::unexpected(granted.error());
  http::Response response;
  response.status = 204;
  response.header("Cache-Control", "no-store");
  if (*granted) {
    response.header("X-Auth-User", (*granted)->user().username)
        .header("X-Auth-Role", std::string(to_string((*granted)->user().role)));
  }
  return response;
}

}  // namespace authd::handlers
