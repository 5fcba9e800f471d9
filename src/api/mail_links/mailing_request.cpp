// The answer to a request that may mail a link (POST /password/forgot, POST
// /email/verify/resend; declared in mailing_request.hpp): the per-address limit's
// refusal audited, a storage error as 503 (a queued mail wakes the sender
// through the core's events: the service tells them), and always the same 202
// body at the same time after the request started, whatever happened, so that
// the answer tells nothing of the account.

#include "api/audit_request.hpp"
#include "api/mail_links/mailing_request.hpp"
#include "program/log.hpp"

namespace authd::handlers {

HandlerResult answer_mailing_request(App& app, const http::Request& request, const MailingRequest& mailing,
                                     Result<void> admitted,
                                     const std::function<Result<MailOutcome>(std::string& found_username)>& ask) {
  if (!admitted) {
    if (admitted.error().code == Errc::throttled) {
      audit(app, request, {.event = std::string(mailing.event), .outcome = "refused",
                           .reason = "too many requests from this address"});
    }
    return std::unexpected(admitted.error());
  }
  std::string found;
  auto outcome = ask(found);
  if (!outcome) {
    log::warn(std::string(mailing.what) + ": " + outcome.error().message);
    return fail(Errc::unavailable, "cannot record the request now; try again later");
  }
  audit(app, request, {.event = std::string(mailing.event), .username = found,
                       .outcome = *outcome == MailOutcome::queued ? "ok" : "refused",
                       .reason = std::string(to_string(*outcome))});
  Json answer = Json::object();
  answer.set("message", Json::string(mailing.answer));
  auto response = http::Response::json(202, answer);
  response.header("Cache-Control", "no-store");
  // Held, not slept on: the lane thread is free meanwhile (DelayedAnswers).
  response.not_before = mailing.started + app.core->settings().mail.password_forgot_time;
  return response;
}

}  // namespace authd::handlers
