#include <algorithm>

#include "authd/clock.hpp"
#include "api/session/session_answers.hpp"
#include "http/cross_site.hpp"

namespace authd::handlers {

Session session_cookies(const App& app, const http::Request& request, IssuedSession issued, std::int64_t now) {
  Session session;
  session.token = std::move(issued.access_token);
  session.cookies.push_back(auth_cookie(app, request, session.token));
  if (issued.refresh) {
    session.cookies.push_back(refresh_cookie(app, request, issued.refresh->refresh_token, issued.refresh->expires_at - now));
  }
  return session;
}

Session start_session(const App& app, const http::Request& request, const User& user, std::string_view amr) {
  const auto now = unix_now();
  return session_cookies(app, request, app.core->sign_in().issue(user, amr, now), now);
}

void attach_session(http::Response& response, Session session) {
  response.header("Set-Cookie", std::move(session.cookies.front()))
      .header("token", session.token)
      .header("Cache-Control", "no-store");  // RFC 6749 §5.1: never cache a token
  for (std::size_t i = 1; i < session.cookies.size(); ++i) response.header("Set-Cookie", std::move(session.cookies[i]));
}

http::Response token_response(const App& app, const http::Request& request, int status, const User& user,
                              Json user_body, std::string_view amr) {
  // The refresh token travels in its own cookie only: the body keeps the spec's exact shape.
  Session session = start_session(app, request, user, amr);
  Json body = Json::object();
  body.set("token", Json::string(session.token)).set("user", std::move(user_body));
  auto response = http::Response::json(status, body);
  attach_session(response, std::move(session));
  return response;
}

std::string auth_cookie(const App& app, const http::Request& request, std::string_view token) {
  std::string cookie = "auth=" + std::string(token) + "; Path=/; Max-Age=" +
                       std::to_string(app.core->settings().token.ttl.count()) + "; HttpOnly; SameSite=Lax";
  if (secure_cookies(app, request)) cookie += "; Secure";
  return cookie;
}

std::string refresh_cookie(const App& app, const http::Request& request, std::string_view refresh_token,
                           std::int64_t max_age) {
  std::string cookie = "refresh=" + std::string(refresh_token) + "; Path=" + request.base_path +
                       std::string(kRefreshCookiePath) + "; Max-Age=" + std::to_string(std::max<std::int64_t>(max_age, 1)) +
                       "; HttpOnly; SameSite=Strict";
  if (secure_cookies(app, request)) cookie += "; Secure";
  return cookie;
}

std::string expired_cookie(const App& app, const http::Request& request, std::string_view name, std::string_view path) {
  std::string cookie = std::string(name) + "=; Path=" + (path == "/" ? std::string("/") : request.base_path + std::string(path)) +
                       "; Max-Age=0; HttpOnly; SameSite=Lax";
  if (secure_cookies(app, request)) cookie += "; Secure";
  return cookie;
}

bool secure_cookies(const App& app, const http::Request& request) {
  return app.server.cookie_secure == CookieSecure::always ||
         (app.server.cookie_secure == CookieSecure::automatic && request.https);
}

}  // namespace authd::handlers
