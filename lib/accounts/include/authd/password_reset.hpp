// Password reset by mail: a single-use link to the account's address.
//
//  - request(): finds the account by username or email; when it has an
//    email and is under `password_reset_account_limit` mails this hour, a
//    random token (stored only as its SHA-256, in the "password_reset"
//    namespace, expiring after password_reset_ttl) and the mail carrying it
//    are written in ONE write transaction (the outbox, authd/mail.hpp).
//    Whatever happened, the caller answers the same (no enumeration).
//  - reset(): the token's account gets the new password (the policy
//    applies), its token generation + 1 (every token ends), and every reset
//    and verification link of the account is deleted, all in one write
//    transaction. The link must have been mailed to the account's current
//    address (else refused); it reached it, so that address counts as verified.
//
// A pending link lives only as long as what it was mailed for: changing the
// password or the address, an admin's sign-out of the account and deleting it
// end every reset and verification link of the account in the same write
// transaction as the change (end_pending_links).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "authd/accounts.hpp"
#include "authd/mail.hpp"
#include "authd/store.hpp"

namespace authd {

class PasswordReset {
 public:
  static constexpr std::string_view kNamespace = "password_reset";

  // `events` hears of every mail queued (Core::events).
  PasswordReset(Store& store, Accounts& accounts, const PasswordHasher& hasher, const MailSettings& settings,
                const mail::Templates& templates, Events& events = no_events())
      : store_(store), accounts_(accounts), hasher_(hasher), settings_(settings), templates_(templates),
        events_(events) {}

  // One more request from the client address group; throttled past
  // password_reset_address_limit per hour. Errors: throttled, unavailable.
  Result<void> admit_address(std::string_view address, std::int64_t now);

  // What happened, for the audit log only (never for the client): queued,
  // unknown, no_email, limited, mail_off (of the last account asked for, when
  // one email names several). `username` receives the account's name when
  // one was found. Errors: storage only.
  Result<MailOutcome> request(std::string_view username, std::string_view email, std::int64_t now,
                              std::string& found_username);

  // Errors: invalid_input (field "token": unknown, used or expired; field
  // "new_password": the policy), storage errors.
  Result<User> reset(std::string_view token, std::string_view new_password, std::int64_t now);

 private:
  Store& store_;
  Accounts& accounts_;
  const PasswordHasher& hasher_;
  const MailSettings& settings_;
  const mail::Templates& templates_;
  Events& events_;
};

// Deletes every pending password reset and email verification link of the
// account `user_id`, inside the caller's write transaction (LMDB and
// PostgreSQL alike: the change and the deletion commit together or not at all).
Result<void> end_pending_links(StoreTxn& txn, std::string_view user_id);

// "30 minutes", "1 hour", "7 days": a lifetime as mail text.
std::string describe_duration(std::int64_t seconds);

}  // namespace authd
