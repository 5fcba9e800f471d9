// Internal to lib/accounts/: the single-use links mailed to an account's
// address (password reset, email verification; invitations use the token and
// its key only). The mail carries a random token; the store keeps only its
// SHA-256 (key_of) in the link's namespace, with what the link was mailed
// for (Pending), until it expires.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "authd/error.hpp"
#include "authd/mail.hpp"
#include "authd/store.hpp"
#include "authd/user.hpp"

namespace authd::mailed_link {

// The random bytes of a link's token.
inline constexpr std::size_t kTokenBytes = 32;

// The store key of a token: its SHA-256 in hex (the token itself is never stored).
std::string key_of(std::string_view token);

// What a pending link is for: the account (id and name when mailed), the
// address it was mailed to, and when it expires (Unix seconds).
struct Pending {
  std::string user_id, username, email;
  std::int64_t expires = 0;
};

// A stored link's entry; nullopt when it is not a JSON object.
std::optional<Pending> parse(std::string_view text);

// Inside the caller's write transaction: when the account is under
// `hourly_limit` mails counted under `counter` this hour (hourly_limit.hpp),
// stores the link of `token` for `pending` in namespace `kind` and queues
// `message`, which carries it, as outbox kind `kind` (dropped when the link
// expires). True when queued, false when the limit refused it. Errors: storage.
Result<bool> store_and_queue(StoreTxn& txn, std::string_view kind, std::string_view token, const Pending& pending,
                             const MailSettings& settings, const mail::Message& message, std::string_view counter,
                             unsigned hourly_limit, std::int64_t now);

// A link being redeemed: what it was mailed for and its account now.
struct Redeemable {
  Pending pending;
  User user;
};

// Inside the caller's write transaction: the link stored under `key` in
// namespace `kind`, when it is known, well-formed, unexpired and its account
// is still the one it was mailed to (same name, same _id); else nullopt, and
// a link that fails these checks is deleted (an unknown one is left as is).
// Errors: storage.
Result<std::optional<Redeemable>> open(StoreTxn& txn, std::string_view kind, std::string_view key, std::int64_t now);

}  // namespace authd::mailed_link
