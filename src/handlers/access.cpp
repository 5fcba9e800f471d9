// Access decisions for OTHER applications behind the web server:
//  - the FastCGI Authorizer role (lighttpd "mode" => "authorizer", Apache
//    mod_authnz_fcgi): 200 + Variable-AUTH_USER / Variable-AUTH_ROLE grants;
//  - GET /auth/check for forward-auth proxies (nginx auth_request): the
//    original request in X-Original-Method / X-Original-URI; 204 +
//    X-Auth-User / X-Auth-Role grants.
// Refusals are the same 401/403 {"error":"Access Denied"} as our own routes.
#include "authd/access_rules.hpp"
#include "handlers/handlers.hpp"
#include "http/query.hpp"

namespace authd::handlers {
namespace {

constexpr std::string_view kAuthCookie = "auth";

// The decision for `method` + `uri` with the request's credentials.
Result<std::optional<Principal>> decide(App& app, const http::Request& request, std::string_view method,
                                        std::string_view uri) {
  const auto path = normalized_request_path(uri);
  if (!path) return fail(Errc::invalid_input, "the original URI is not a valid path");
  return app.core->check_request(method, *path, request.authorization(),
                                 http::cookie_value(request.param("HTTP_COOKIE"), kAuthCookie));
}

}  // namespace

HandlerResult authorizer(App& app, const http::Request& request, const RouteContext&) {
  auto granted = decide(app, request, request.method, request.param("REQUEST_URI"));
  if (!granted) return std::unexpected(granted.error());
  http::Response response;
  response.status = 200;
  if (*granted) {
    response.header("Variable-AUTH_USER", (*granted)->user.username)
        .header("Variable-AUTH_ROLE", std::string(to_string((*granted)->user.role)));
  }
  return response;
}

HandlerResult auth_check(App& app, const http::Request& request, const RouteContext&) {
  const auto original_uri = request.param("HTTP_X_ORIGINAL_URI");
  if (original_uri.empty()) return fail(Errc::invalid_input, "X-Original-URI is required");
  const auto original_method = request.param("HTTP_X_ORIGINAL_METHOD");
  auto granted = decide(app, request, original_method.empty() ? std::string_view(request.method) : original_method,
                        original_uri);
  if (!granted) return std::unexpected(granted.error());
  http::Response response;
  response.status = 204;
  response.header("Cache-Control", "no-store");
  if (*granted) {
    response.header("X-Auth-User", (*granted)->user.username)
        .header("X-Auth-Role", std::string(to_string((*granted)->user.role)));
  }
  return response;
}

}  // namespace authd::handlers
