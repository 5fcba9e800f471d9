#include "api/security_notices.hpp"

#include <string>

#include "authd/clock.hpp"
#include "authd/email_verification.hpp"
#include "program/log.hpp"
#include "serving/mail_sender.hpp"

namespace authd::handlers {

void notify(App& app, const User& user, std::string_view kind) {
  auto sent = send_notice(app.core->store(), app.core->settings().mail, *app.mail_templates, kind, user, unix_now());
  if (!sent) log::warn("cannot queue the " + std::string(kind) + " notice: " + sent.error().message);
  else if (*sent) mail_sender::wake();
}

}  // namespace authd::handlers
