// The security notices mailed to a user (password_changed, mfa_added,
// mfa_removed), for the handlers of every group that changes a credential.
#pragma once

#include <string_view>

#include "authd/user.hpp"
#include "program/app.hpp"

namespace authd::handlers {

// A security notice of `kind` to `user`'s verified address when its notify_*
// setting is on (tell_user: a queued one wakes the mail sender, a failure is
// logged, through the core's events).
void notify(App& app, const User& user, std::string_view kind);

}  // namespace authd::handlers
