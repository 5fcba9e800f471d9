// Rotating refresh tokens (refresh_token_ttl; 0 = off). A refresh token is
// "<user id>.<family>.<secret>": the family is one chain of tokens begun by
// one sign-in; the store keeps, per family, the SHA-256 of the one secret
// that may be used next (namespace "refresh:<user id>", expiring after the
// ttl, so purge_expired drops abandoned families). Each use rotates the
// secret. Presenting any other secret of a live family means a copy of an
// already used token is being replayed: the family ends, the newest token
// with it (RFC 9700 §4.14.2). Signing out everywhere ends every family.
// A family never outlives refresh_token_max_age after its sign-in, however
// often it rotates (a stolen token cannot be kept alive for ever). The
// access tokens a family hands out name it in their `sid` claim, so that
// POST /signout, which the `refresh` cookie never reaches, ends it.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "authd/error.hpp"
#include "authd/session_ends.hpp"
#include "authd/settings.hpp"
#include "authd/store.hpp"
#include "authd/user.hpp"

namespace authd {

inline constexpr std::string_view kRefreshCookiePath = "/token/refresh";
// The access-token claim naming the refresh family it came from.
inline constexpr std::string_view kRefreshFamilyClaim = "sid";

struct RefreshPolicy {
  std::chrono::seconds ttl{0};                        // 0: no refresh tokens
  std::chrono::seconds max_age{30LL * 24 * 3600};     // a family's absolute lifetime
};

// refresh_token_ttl, refresh_token_max_age.
std::vector<settings::Setting> refresh_settings(RefreshPolicy& policy);

struct Refreshed {
  User user;
  std::string refresh_token;  // the next one
  std::string amr;            // how the family's sign-in authenticated ("" or e.g. "pwd otp")
  std::string family;         // for the access token's `sid` claim
  std::int64_t expires_at = 0;  // when the next token stops working (ttl, capped by max_age)
  std::string scope;            // an OpenID client's family: the granted scopes
  std::int64_t authenticated_at = 0;  // when the family's sign-in was (the access token's auth_time)
};

// What a live refresh token is (RefreshTokens::inspect: RFC 7662 introspection).
struct RefreshTokenInfo {
  User user;
  std::string family;
  std::string client_id;   // "" for authd's own sessions
  std::string scope;
  std::int64_t started_at = 0;  // when its family began
  std::int64_t expires_at = 0;  // when it stops working (ttl, capped by max_age)
};

struct Started {
  std::string refresh_token;
  std::string family;
  std::int64_t expires_at = 0;
};

class RefreshTokens {
 public:
  RefreshTokens(Store& store, RefreshPolicy policy) : store_(store), policy_(policy) {}

  bool enabled() const noexcept { return policy_.ttl.count() > 0; }

  // A new family for `user`; `amr` (the sign-in's methods, e.g. "pwd otp")
  // is kept for the access tokens the family hands out. Errors: storage_full, internal.
  // `client_id` (and its granted `scope`) binds the family to an OpenID
  // client (authd as provider): only that client may rotate it.
  // `authenticated_at`: when the user signed in, if before `now` (an
  // authorization code redeemed from an older session; 0 = now): every
  // rotation hands it on as the auth_time of the tokens it mints.
  Result<Started> start(const User& user, std::int64_t now, std::string_view amr = {},
                        std::string_view client_id = {}, std::string_view scope = {},
                        std::int64_t authenticated_at = 0);

  // Uses `token` once: the user and the next token. Errors: invalid_token
  // (unknown, expired, malformed, reused — a reuse ends the family, user
  // gone), storage_full, internal.
  // `client_id`: the OpenID client presenting it ("" for authd's own
  // /token/refresh); a family of another client is refused (invalid_token).
  // `admit`, when given, judges the user (as just read) before anything is
  // rotated: its error is rotate's, and the token stays usable (a directory
  // user locked now may use it again once unlocked).
  using Admit = std::function<Result<void>(const User& user)>;
  Result<Refreshed> rotate(std::string_view token, std::int64_t now, std::string_view client_id = {},
                           const Admit& admit = {});

  // What `token` is if it is the family's current token and still usable at
  // `now` (its user still the one it was issued to), read only: nothing
  // rotates or ends. Errors: invalid_token (unknown, expired, malformed, an
  // already used secret, user gone), internal.
  Result<RefreshTokenInfo> inspect(std::string_view token, std::int64_t now) const;
  // Ends the family of `token` if it is bound to OpenID client `client_id`
  // (RFC 7009 revocation: any secret of the family, used or current, as a
  // replay at rotate() would). Returns whether a family ended; a token of
  // another client, or unknown, ends nothing.
  Result<bool> revoke_for_client(std::string_view token, std::string_view client_id);

  // Ends the family of `token` (sign-out); unknown tokens are ignored.
  Result<void> end(std::string_view token);
  // Ends family `family` of the user (sign-out by an access token's `sid`);
  // an unknown family is ignored.
  Result<void> end_family(std::string_view user_id, std::string_view family);
  // Ends the user's families of OpenID client `client_id` (consent revoked).
  Result<void> end_client(std::string_view user_id, std::string_view client_id);
  // Ends every family of the user (sign-out everywhere, password change).
  Result<void> end_user(std::string_view user_id);

  const RefreshPolicy& policy() const noexcept { return policy_; }

  // What end_family, end_client and end_user also do in their transaction
  // (the core's back-channel logout); nullptr: nothing.
  void on_session_end(SessionEndHook* hook) noexcept { hook_ = hook; }

 private:
  // One write ending `ended` with `work`, the hook told inside and after it.
  Result<void> ending(const EndedSessions& ended, const std::function<Result<void>(StoreTxn&)>& work);

  Store& store_;
  RefreshPolicy policy_;
  SessionEndHook* hook_ = nullptr;
};

// Ends every refresh family of OpenID client `client_id`, of every user, in
// `txn` (the client is being removed: OidcClients::remove). A sweep of all
// refresh namespaces (StoreTxn::list_entries_under). Returns how many ended.
Result<std::size_t> end_client_families(StoreTxn& txn, std::string_view client_id);

}  // namespace authd
