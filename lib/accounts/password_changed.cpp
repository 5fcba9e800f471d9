// What follows every password change (authd/accounts.hpp): one policy for
// PUT /me/password and POST /password/reset.
#include "authd/accounts.hpp"
#include "authd/email_verification.hpp"
#include "authd/refresh.hpp"

namespace authd {

void after_password_change(RefreshTokens& refresh, Store& store, const MailSettings& mail,
                           const mail::Templates& templates, Events& events, const User& user, std::int64_t now) {
  if (auto ended = refresh.end_user(user.id); !ended) {
    events.warning("cannot end the refresh tokens of a user: " + ended.error().message);
  }
  tell_user(store, mail, templates, "password_changed", user, now, events);
}

}  // namespace authd
