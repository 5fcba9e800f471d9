// The HTTP side of the sign-in use case (authd/sign_in.hpp): what a request
// tells it (address, request id, device cookie, User-Agent) and its answer
// as HTTP (its reports go to the core's events: src/main.cpp):
// 200 {token, user:{acl, username}} with the session's cookies, or the
// 401 MFA Required challenge (http/error_mapping.cpp).
#include "authd/clock.hpp"
#include "api/session/routes.hpp"
#include "api/session/session_answers.hpp"
#include "http/query.hpp"

namespace authd::handlers {
namespace {

// The device cookie (OWASP "device cookies", lib/accounts/throttle.cpp): with
// it, that browser is never locked out by failures others send for the same name.
constexpr std::string_view kDeviceCookie = "authd_device";

std::string device_cookie(const App& app, const http::Request& request, std::string_view token,
                          std::chrono::seconds ttl) {
  std::string cookie = std::string(kDeviceCookie) + "=" + std::string(token) + "; Path=/; Max-Age=" +
                       std::to_string(ttl.count()) + "; HttpOnly; SameSite=Strict";
  if (secure_cookies(app, request)) cookie += "; Secure";
  return cookie;
}

}  // namespace

void give_device_cookie(const App& app, const http::Request& request, http::Response& response, const User& user) {
  const SignIn& sign_in = app.core->sign_in();
  response.header("Set-Cookie", device_cookie(app, request, sign_in.new_device_token(user, unix_now()), sign_in.device_ttl()));
}

SignInClient sign_in_client(const http::Request& request) {
  return {.address = request.remote_addr,
          .request_id = request.request_id,
          .device_token = std::string(http::cookie_value(request.param("HTTP_COOKIE"), kDeviceCookie)),
          .user_agent = std::string(request.param("HTTP_USER_AGENT"))};
}

HandlerResult sign_in_answer(const App& app, const http::Request& request, Result<SignInOutcome> outcome) {
  if (!outcome) return std::unexpected(outcome.error());
  if (auto* due = std::get_if<SecondFactorDue>(&*outcome)) {
    return fail(Error::second_factor_due(std::move(due->mfa_token), std::move(due->methods)));
  }
  auto& done = std::get<SignedIn>(*outcome);
  Json shown = Json::object();
  shown.set("acl", Json::array()).set("username", Json::string(done.user.username));
  // The refresh token travels in its own cookie only: the body keeps the spec's exact shape.
  Session session = session_cookies(app, request, std::move(done.session), done.issued_at);
  Json body = Json::object();
  body.set("token", Json::string(session.token)).set("user", std::move(shown));
  auto response = http::Response::json(200, body);
  attach_session(response, std::move(session));
  if (!done.device_token.empty()) {
    response.header("Set-Cookie", device_cookie(app, request, done.device_token, done.device_ttl));
  }
  return response;
}

}  // namespace authd::handlers
