// POST /signin with Authorization: Basic -> 200 {token, user:{acl, username}}
// Every failure is the same 500 {"error":"Invalid Login"}; repeated failures
// are throttled (429, lib/accounts/throttle.cpp), a throttle that cannot
// count refuses (503). A successful sign-in also gives the browser a signed
// device cookie (OWASP "device cookies"): with it, that browser is never
// locked out by failures others send for the same name.
// With a second factor: 401 {"error":"MFA Required","mfa_token","methods"} (handlers/mfa.cpp).
#include "authd/authorization.hpp"
#include "authd/clock.hpp"
#include "authd/text.hpp"
#include "handlers/handlers.hpp"
#include "http/query.hpp"
#include "log.hpp"
#include "metrics.hpp"

namespace authd::handlers {
namespace {

constexpr std::string_view kDeviceCookie = "authd_device";
constexpr std::string_view kDeviceTokenType = "authd-device+jwt";
constexpr std::string_view kDeviceSubject = "device";

// The identifier of the request's device cookie when it is valid and was
// given to `username` (ASCII case aside); "" otherwise.
std::string known_device(const App& app, const http::Request& request, std::string_view username, std::int64_t now) {
  const auto cookie = http::cookie_value(request.param("HTTP_COOKIE"), kDeviceCookie);
  if (cookie.empty()) return {};
  auto claims = app.core->tokens().verify(cookie, kDeviceTokenType, now);
  if (!claims || claims->subject != kDeviceSubject || !text::iequals(claims->username, username)) return {};
  return claims->token_id;
}

std::string device_cookie(const App& app, const http::Request& request, const User& user, std::int64_t now) {
  const auto ttl = app.core->throttle().policy().device_ttl;
  std::string cookie = std::string(kDeviceCookie) + "=" +
                       app.core->tokens().issue(kDeviceTokenType, kDeviceSubject, user.username, now, {}, ttl) +
                       "; Path=/; Max-Age=" + std::to_string(ttl.count()) + "; HttpOnly; SameSite=Strict";
  if (secure_cookies(app, request)) cookie += "; Secure";
  return cookie;
}

}  // namespace

HandlerResult signin(App& app, const http::Request& request, const RouteContext&) {
  // Never from another site: the route table refuses it (routes.cpp, admit()).
  auto credentials = parse_basic_authorization(request.authorization());
  if (!credentials) return fail(Errc::invalid_login, "malformed Basic credentials");  // no hash, nothing to guess

  const auto now = unix_now();
  auto& throttle = app.core->throttle();
  const auto device = known_device(app, request, credentials->username, now);
  if (auto allowed = throttle.check(credentials->username, request.remote_addr, now, device); !allowed) {
    if (allowed.error().code == Errc::throttled) {
      metrics::throttled();
      metrics::signin("throttled");
      audit(app, request, {.event = "throttled", .username = credentials->username, .outcome = "refused",
                           .reason = allowed.error().message});
    }
    return std::unexpected(allowed.error());
  }
  auto user = app.core->accounts().sign_in(*credentials);
  if (!user) {
    if (user.error().code == Errc::invalid_login) {
      metrics::signin("failed");
      // An imported bcrypt hash of a refused cost: the client sees a wrong
      // password, the operator a clear line (accounts.hpp).
      const bool unusable_hash = user.error().message.starts_with(kRefusedStoredHash);
      if (unusable_hash) {
        log::warn("user '" + credentials->username + "': " + user.error().message + " (accepted: " +
                  std::to_string(PasswordHasher::kBcryptMinCost) + " to " + std::to_string(PasswordHasher::kBcryptMaxCost) +
                  "): password sign-in refused until an operator replaces the account's password (authctl delete, "
                  "then authctl add)");
      }
      audit(app, request, {.event = "signin_failed", .username = credentials->username, .outcome = "refused",
                           .reason = unusable_hash ? user.error().message : "wrong password or unknown user"});
      // Fail closed: a failure we cannot count must not be free.
      if (auto counted = throttle.record_failure(credentials->username, request.remote_addr, now, device); !counted) {
        return std::unexpected(counted.error());
      }
    }
    return std::unexpected(user.error());
  }
  if (auto noted = throttle.record_success(user->username, request.remote_addr, now); !noted) {
    log::warn("cannot record a sign-in: " + noted.error().message);
  }
  if (auto verified = refuse_unverified(app, request, *user); !verified) {
    metrics::signin("refused");
    return std::unexpected(verified.error());
  }
  // A user with an active second factor gets 401 MFA Required + mfa_token
  // (POST /signin/mfa finishes); everyone else the spec's answer below.
  if (auto second = ask_second_factor(app, request, *user, "pwd"); !second) return std::unexpected(second.error());

  metrics::signin("ok");
  audit(app, request, {.event = "signin", .username = user->username, .outcome = "ok"});
  Json shown = Json::object();
  shown.set("acl", Json::array()).set("username", Json::string(user->username));
  auto response = token_response(app, request, 200, *user, std::move(shown));
  response.header("Set-Cookie", device_cookie(app, request, *user, now));
  return response;
}

}  // namespace authd::handlers
