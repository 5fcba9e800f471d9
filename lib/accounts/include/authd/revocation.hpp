// Ending tokens before they expire: sign-out of one token, sign-out
// everywhere, and the check the guard runs on every protected request.
//
// Why it costs no extra store round trip on the usual request: the guard
// loads the token's user anyway (re-authentication), and that User record
// carries the two facts the check needs:
//  - token_generation: every access token carries it as `gen`. Signing out
//    everywhere (and a password change) adds 1, so every older token fails
//    the comparison: no list at all.
//  - last_revocation: when the user last signed out ONE token. Only a token
//    issued at or before that moment can be on the revocation list, so only
//    such a token costs one more read (the jti in namespace "revoked_jti").
//    A token issued after it, or any token of a user who never signed out a
//    single session, is judged from the record alone.
// The list holds one entry per signed-out token, kept until that token's
// `exp` (expires_at), so purge_expired keeps it bounded. Neither check is
// cached: the verified-token cache only remembers signatures, the guard
// runs these checks on every request, so a revoked token never gets through.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "authd/error.hpp"
#include "authd/session_ends.hpp"
#include "authd/store.hpp"
#include "authd/token.hpp"
#include "authd/user.hpp"

namespace authd {

inline constexpr std::string_view kRevokedTokenNamespace = "revoked_jti";
inline constexpr std::string_view kGenerationClaim = "gen";

// The `gen` claim an access token of `user` carries.
std::map<std::string, std::string, std::less<>> lifecycle_claims(const User& user);

class TokenRevocation {
 public:
  explicit TokenRevocation(Store& store) : store_(store) {}

  // Revokes the token `claims` describe (its jti until its exp — pass exp plus
  // the leeway the verifier allows) and notes the
  // time in its user's record. Errors: invalid_token (no jti), not_found
  // (user gone), storage_full, internal.
  Result<void> revoke(std::string_view username, const TokenClaims& claims, std::int64_t now);

  // Revokes a token of no user's (a service client's: authd/token.hpp's
  // kServiceSubjectPrefix): its jti goes on the list, which the guard reads
  // for every such token. Errors: invalid_token (no jti), storage_full.
  Result<void> revoke_listed(const TokenClaims& claims);

  // Ends every token of the user (generation + 1). Returns the updated user.
  // `with_links`: an operator's sign-out of the account (a theft, a person
  // who left) also ends its pending reset and verification links, in the
  // same write transaction (password_reset.hpp: end_pending_links).
  Result<User> end_all(std::string_view username, bool with_links = false);

  // Whether a token with valid signature and claims is still alive for
  // `user` (already loaded by the caller). Error: invalid_token.
  Result<void> check(const User& user, const TokenClaims& claims) const;

  // What revoke() also does in its transaction: the session the token is
  // (its `sid` family when it names one, else its jti) ends for the hook
  // (the core's back-channel logout); nullptr: nothing.
  void on_session_end(SessionEndHook* hook) noexcept { hook_ = hook; }

 private:
  Store& store_;
  SessionEndHook* hook_ = nullptr;
  std::atomic<std::uint64_t> revocations_{0};
};

}  // namespace authd
