// Changing a user's second factors (issue 23 class 2: no step-up by
// enrolment). A session without a second factor (an OAuth sign-in with
// mfa_for_oauth off, a refresh family older than the enrolment) must not
// add its own passkey or TOTP and then sign in with it as "mfa", nor remove
// the factor that guards the account. So once the user has an active
// factor, a change needs a token whose amr shows a second factor or a
// current TOTP or recovery code in the same request ("second_factor"); and a
// change ends every other token and refresh family of the user.

#include "authd/clock.hpp"
#include "authd/mfa.hpp"
#include "api/audit_request.hpp"
#include "api/mfa/factor_checks.hpp"
#include "api/route.hpp"
#include "api/session/session_answers.hpp"
#include "program/log.hpp"

namespace authd::handlers {
namespace {

std::string_view amr_of(const Principal& principal) {
  const auto amr = principal.claims().extra.find(kAmrClaim);
  return amr == principal.claims().extra.end() ? std::string_view() : std::string_view(amr->second);
}

}  // namespace

Result<void> allow_factor_change(App& app, const http::Request& request, const RouteContext& context, const Json& body) {
  const User& user = context.principal->user();
  auto status = app.core->mfa().status(user);
  if (!status) return std::unexpected(status.error());
  if (!status->any()) return {};  // the first factor: there is nothing to step up from
  if (amr_has_second_factor(amr_of(*context.principal))) return {};
  if (!body.is_object() || !body.has("second_factor")) {
    audit(app, request, {.event = "mfa_change_refused", .username = user.username, .outcome = "refused",
                         .reason = "no second factor in the token or the request"});
    return fail(Errc::mfa_required,
                "changing the second factors of this account needs a token that shows one (sign in with it) "
                "or \"second_factor\": a current TOTP or recovery code");
  }
  const auto code = body.get_string("second_factor");
  if (!code) return fail_field("second_factor", "second_factor must be a string (a TOTP or recovery code)");
  const auto now = unix_now();
  auto& throttle = app.core->throttle();
  const std::string key = second_factor_throttle_key(user.username);  // shared with the sign-in
  if (auto allowed = throttle.check(key, request.remote_addr, now); !allowed) return std::unexpected(allowed.error());
  auto method = app.core->mfa().verify_code(user, *code, now);
  if (!method) {
    if (method.error().code == Errc::mfa_failed) {
      audit(app, request, {.event = "mfa_change_refused", .username = user.username, .outcome = "refused",
                           .reason = "wrong or reused second_factor code"});
      if (auto counted = throttle.record_failure(key, request.remote_addr, now); !counted) {
        log::warn("cannot count a failed second factor: " + counted.error().message);
      }
    }
    return std::unexpected(method.error());
  }
  return {};
}

Result<http::Response> end_other_sessions(App& app, const http::Request& request, const RouteContext& context,
                                          http::Response response) {
  const Principal& who = *context.principal;
  auto user = app.core->revocation().end_all(who.user().username);
  if (!user) return std::unexpected(user.error());
  if (auto ended = app.core->refresh().end_user(user->id); !ended) {
    log::warn("cannot end the refresh tokens of a user: " + ended.error().message);
  }
  // This session goes on, as it authenticated: a new factor shows in a
  // token only after a sign-in that used it.
  attach_session(response, start_session(app, request, *user, amr_of(who)));
  return response;
}

}  // namespace authd::handlers
