// Verified email: a single-use link mailed to the address to confirm.
//
//  - send(): a random token (stored only as its SHA-256, in the
//    "email_verify" namespace, expiring after email_verify_ttl) and the mail
//    carrying it are written in ONE write transaction (the outbox,
//    authd/mail.hpp), at most email_verify_account_limit per account and hour.
//    The address is the account's own (sign-up, resend) or a new one
//    (PUT /me/email): a new address replaces the old one only once verified.
//  - verify(): the token's account gets the token's address, verified;
//    every verification token of the account for that address ends; an
//    address change also queues the email_changed notice to the old address.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "authd/mail.hpp"
#include "authd/store.hpp"
#include "authd/user.hpp"

namespace authd {

class EmailVerification {
 public:
  static constexpr std::string_view kNamespace = "email_verify";

  // `events` hears of every mail queued (Core::events).
  EmailVerification(Store& store, const MailSettings& settings, const mail::Templates& templates,
                    Events& events = no_events())
      : store_(store), settings_(settings), templates_(templates), events_(events) {}

  // Mails a link that verifies `address` for `user`. What happened, for the
  // audit log: queued, mail_off, no_email (not an address we send to),
  // verified (nothing to do), limited. Errors: storage only.
  Result<MailOutcome> send(const User& user, std::string_view address, std::int64_t now);

  // POST /email/verify/resend by name: the account's own address again when
  // it is not verified yet. Outcome as send(), or unknown; `found_username`
  // receives the account's name. Errors: storage only.
  Result<MailOutcome> resend(std::string_view username, std::int64_t now, std::string& found_username);

  // One more request from the client address group; throttled past
  // password_reset_address_limit per hour (the setting bounds both mailing
  // routes, each with its own count). Errors: throttled, unavailable.
  Result<void> admit_address(std::string_view address, std::int64_t now);

  struct Verified {
    User user;
    std::string previous_email;  // the address it replaced ("" when the address stayed)
  };
  // Errors: invalid_input (field "token": unknown, used or expired), storage errors.
  Result<Verified> verify(std::string_view token, std::int64_t now);

  // The address waiting for verification through PUT /me/email ("" when none).
  Result<std::string> pending_change(const User& user, std::int64_t now);

 private:
  Store& store_;
  const MailSettings& settings_;
  const mail::Templates& templates_;
  Events& events_;
};

// Security notices (password_changed, email_changed, mfa_added, ...) to
// `to`: queued in the caller's write transaction when mail is on and `to`
// is an address we send to; nothing otherwise. The link leads to /forgot.
Result<void> queue_notice(StoreTxn& txn, const MailSettings& settings, const mail::Templates& templates,
                          std::string_view kind, const User& user, std::string_view to, std::int64_t now,
                          std::string_view email = {},
                          const std::map<std::string, std::string, std::less<>>& details = {});

// Whether notice `kind` is on (notify_<kind> settings; mfa_added, ...).
bool notice_enabled(const MailSettings& settings, std::string_view kind);

// A security notice to `user`'s address, in a write transaction of its own:
// only when mail and the notice are on and the address is verified.
// `details`: more placeholders (new_device and sign_in_pending: time,
// address, user_agent: the browser summary, authd/device_notice.hpp).
// With a `once_key` (sign_in_pending: the device as far as it is known),
// at most one such notice per account, kind and key per hour, and at most
// kNoticesPerHour of the kind per account (the counters in "mail_limits").
// True when a message was queued. Errors: storage.
Result<bool> send_notice(Store& store, const MailSettings& settings, const mail::Templates& templates,
                         std::string_view kind, const User& user, std::int64_t now,
                         const std::map<std::string, std::string, std::less<>>& details = {},
                         std::string_view once_key = {});
inline constexpr unsigned kNoticesPerHour = 10;

// send_notice, its outcome told to `events`: mail_queued when a message was
// queued, a warning when it could not be (a notice never fails its cause).
void tell_user(Store& store, const MailSettings& settings, const mail::Templates& templates, std::string_view kind,
               const User& user, std::int64_t now, Events& events,
               const std::map<std::string, std::string, std::less<>>& details = {}, std::string_view once_key = {});

}  // namespace authd
