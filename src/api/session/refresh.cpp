// POST /token/refresh: the `refresh` cookie, or {"refresh_token": "..."} for
// clients without cookies -> 200 {"token","refresh_token"} + auth cookie +
// token header + the next refresh cookie. 404 when refresh_token_ttl = 0.
#include "authd/clock.hpp"
#include "api/json_body.hpp"
#include "api/session/routes.hpp"
#include "api/session/session_answers.hpp"
#include "http/query.hpp"
#include "http/cross_site.hpp"

namespace authd::handlers {

HandlerResult token_refresh(App& app, const http::Request& request, const RouteContext&) {
  auto& refresh = app.core->refresh();
  if (!refresh.enabled()) return fail(Errc::not_found, "refresh tokens are off (refresh_token_ttl = 0)");
  std::string presented;
  if (!request.body.empty()) {
    auto body = parse_json_body(app, request);
    if (!body) return std::unexpected(body.error());
    if (!body->is_object()) return fail(Errc::invalid_input, "request body must be a JSON object");
    if (body->has("refresh_token")) {
      const auto value = body->get_string("refresh_token");
      if (!value) return fail_field("refresh_token", "refresh_token must be a string");
      presented = std::string(*value);
    }
  }
  if (presented.empty()) {
    presented = std::string(http::cookie_value(request.param("HTTP_COOKIE"), "refresh"));
    // The cookie travels by itself: only from our own site.
    if (!presented.empty()) {
      if (auto same = http::refuse_cross_site_change(request); !same) return std::unexpected(same.error());
    }
  }
  if (presented.empty()) return fail(Errc::no_credentials, "no refresh token");

  const auto now = unix_now();
  // A directory user the directory no longer lets in gets no new token.
  auto next = refresh.rotate(presented, now, {}, [&](const User& user) -> Result<void> {
    if (auto role = app.core->guard().current_role(user, now); !role) return std::unexpected(role.error());
    return {};
  });
  if (!next) return std::unexpected(next.error());
  // A second factor stays shown; the family stays named for POST /signout;
  // auth_time stays the sign-in's (max_age at /authorize counts from it).
  const std::string token = app.core->issue_access_token(
      next->user, next->amr, next->family, {{std::string(kAuthTimeClaim), std::to_string(next->authenticated_at)}});
  std::string cookie = "auth=" + token + "; Path=/; Max-Age=" + std::to_string(app.core->settings().token.ttl.count()) +
                       "; HttpOnly; SameSite=Lax";
  if (secure_cookies(app, request)) cookie += "; Secure";
  Json body = Json::object();
  body.set("token", Json::string(token)).set("refresh_token", Json::string(next->refresh_token));
  auto response = http::Response::json(200, body);
  response.header("Set-Cookie", std::move(cookie))
      .header("Set-Cookie", refresh_cookie(app, request, next->refresh_token, next->expires_at - now))
      .header("token", token)
      .header("Cache-Control", "no-store");
  return response;
}

}  // namespace authd::handlers
