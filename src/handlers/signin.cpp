// POST /signin with Authorization: Basic -> 200 {token, user:{acl, username}}
// Every failure is the same 500 {"error":"Invalid Login"}; repeated failures
// for a username or from an address are throttled (429, lib/store/throttle.cpp).
#include "authd/authorization.hpp"
#include "authd/clock.hpp"
#include "handlers/handlers.hpp"
#include "log.hpp"
#include "metrics.hpp"

namespace authd::handlers {

HandlerResult signin(App& app, const http::Request& request, const RouteContext&) {
  auto credentials = parse_basic_authorization(request.authorization());
  if (!credentials) return fail(Errc::invalid_login, "malformed Basic credentials");  // no hash, nothing to guess

  const auto now = unix_now();
  if (auto allowed = app.core->throttle().check(credentials->username, request.remote_addr, now); !allowed) {
    if (allowed.error().code == Errc::throttled) {
      metrics::throttled();
      metrics::signin("throttled");
      audit(app, request, {.event = "throttled", .username = credentials->username, .outcome = "refused",
                           .reason = "too many failed sign-ins"});
    }
    return std::unexpected(allowed.error());
  }
  auto user = app.core->accounts().sign_in(*credentials);
  if (!user) {
    if (user.error().code == Errc::invalid_login) {
      metrics::signin("failed");
      audit(app, request, {.event = "signin_failed", .username = credentials->username, .outcome = "refused",
                           .reason = "wrong password or unknown user"});
      if (auto counted = app.core->throttle().record_failure(credentials->username, request.remote_addr, now); !counted) {
        log::warn("cannot count a failed sign-in: " + counted.error().message);
      }
    }
    return std::unexpected(user.error());
  }
  if (auto noted = app.core->throttle().record_success(user->username, request.remote_addr, now); !noted) {
    log::warn("cannot record a sign-in: " + noted.error().message);
  }

  metrics::signin("ok");
  audit(app, request, {.event = "signin", .username = user->username, .outcome = "ok"});
  Json shown = Json::object();
  shown.set("acl", Json::array()).set("username", Json::string(user->username));
  return token_response(app, request, 200, *user, std::move(shown));
}

}  // namespace authd::handlers
