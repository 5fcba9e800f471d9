// Rotating refresh tokens (refresh_token_ttl; 0 = off). A refresh token is
// "<user id>.<family>.<secret>": the family is one chain of tokens begun by
// one sign-in; the store keeps, per family, the SHA-256 of the one secret
// that may be used next (namespace "refresh:<user id>", expiring after the
// ttl, so purge_expired drops abandoned families). Each use rotates the
// secret. Presenting any other secret of a live family means a copy of an
// already used token is being replayed: the family ends, the newest token
// with it (RFC 9700 §4.14.2). Signing out everywhere ends every family.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "authd/error.hpp"
#include "authd/settings.hpp"
#include "authd/store.hpp"
#include "authd/user.hpp"

namespace authd {

inline constexpr std::string_view kRefreshCookiePath = "/token/refresh";

struct RefreshPolicy {
  std::chrono::seconds ttl{0};  // 0: no refresh tokens
};

// refresh_token_ttl.
std::vector<settings::Setting> refresh_settings(RefreshPolicy& policy);

struct Refreshed {
  User user;
  std::string refresh_token;  // the next one
  std::string amr;            // how the family's sign-in authenticated ("" or e.g. "pwd otp")
};

class RefreshTokens {
 public:
  RefreshTokens(Store& store, RefreshPolicy policy) : store_(store), policy_(policy) {}

  bool enabled() const noexcept { return policy_.ttl.count() > 0; }

  // A new family for `user`; `amr` (the sign-in's methods, e.g. "pwd otp")
  // is kept for the access tokens the family hands out. Errors: storage_full, internal.
  Result<std::string> start(const User& user, std::int64_t now, std::string_view amr = {});

  // Uses `token` once: the user and the next token. Errors: invalid_token
  // (unknown, expired, malformed, reused — a reuse ends the family, user
  // gone), storage_full, internal.
  Result<Refreshed> rotate(std::string_view token, std::int64_t now);

  // Ends the family of `token` (sign-out); unknown tokens are ignored.
  Result<void> end(std::string_view token);
  // Ends every family of the user (sign-out everywhere, password change).
  Result<void> end_user(std::string_view user_id);

  const RefreshPolicy& policy() const noexcept { return policy_; }

 private:
  Store& store_;
  RefreshPolicy policy_;
};

}  // namespace authd
