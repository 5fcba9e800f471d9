#include "authd/clock.hpp"
#include "handlers/handlers.hpp"

namespace authd::handlers {

http::Response token_response(const App& app, const http::Request& request, int status, const User& user,
                              Json user_body) {
    const std::string token = app.core->tokens().issue(kAccessTokenType, user.id, user.username, unix_now());

  std::string cookie = "auth=" + token + "; Path=/; Max-Age=" + std::to_string(app.core->settings().token.ttl.count()) +
                       "; HttpOnly; SameSite=Lax";
  if (secure_cookies(app, request)) cookie += "; Secure";

  Json body = Json::object();
  body.set("token", Json::string(token)).set("user", std::move(user_body));
  auto response = http::Response::json(status, body);
  response.header("Set-Cookie", std::move(cookie))
      .header("token", token)
      .header("Cache-Control", "no-store");  // RFC 6749 §5.1: never cache a token
  return response;
}

bool secure_cookies(const App& app, const http::Request& request) {
  return app.server.cookie_secure == CookieSecure::always ||
         (app.server.cookie_secure == CookieSecure::automatic && request.https);
}

Result<Json> parse_json_body(const App& app, const http::Request& request) {
  if (request.body.empty()) return fail(Errc::invalid_input, "request body must be a JSON object");
  return Json::parse(request.body, app.server.max_json_depth);
}

}  // namespace authd::handlers
