#include "api/security_notices.hpp"

#include <string>

#include "authd/clock.hpp"
#include "authd/email_verification.hpp"

namespace authd::handlers {

void notify(App& app, const User& user, std::string_view kind) {
  tell_user(app.core->store(), app.core->settings().mail, app.core->mail_templates(), kind, user, unix_now(),
            app.core->events());
}

}  // namespace authd::handlers
