// The one answer of the mail-link requests open to anyone.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <string_view>

#include "api/route.hpp"

namespace authd::handlers {

// The mailing requests open to anyone, POST /password/forgot and POST
// /email/verify/resend (mailing_request.cpp), once their body is read:
// `admitted`, one more request from the client address (past the hourly limit
// 429, audited as `event` refused), then `ask`, the request itself (what
// happened, for the audit log, and the account's name; a storage error is
// logged after `what` and answered 503), a queued mail sent on, the outcome
// audited as `event`, and 202 {"message": answer}, no-store, sent no earlier
// than `started` + password_forgot_time: the one answer whatever happened
// (nothing told by content or time).
struct MailingRequest {
  std::string_view event;
  std::string_view what;
  std::string_view answer;
  std::chrono::steady_clock::time_point started;
};
HandlerResult answer_mailing_request(App& app, const http::Request& request, const MailingRequest& mailing,
                                     Result<void> admitted,
                                     const std::function<Result<MailOutcome>(std::string& found_username)>& ask);

}  // namespace authd::handlers
