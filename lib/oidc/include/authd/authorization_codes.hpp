// OAuth 2.0 authorization codes of authd as OpenID provider (RFC 6749 §4.1,
// RFC 7636, RFC 9700 §4.5): 32 random bytes, alive 60 seconds, usable once,
// kept only as their SHA-256 (namespace "oidc_code"). A second use of a code
// is refused and reports what the first use issued, so the token endpoint can
// revoke it (RFC 6749 §4.1.2: "SHOULD revoke ... all tokens previously
// issued based on that authorization code").
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "authd/error.hpp"
#include "authd/store.hpp"

namespace authd {

// What the user agreed to at /authorize, bound to the code.
struct CodeGrant {
  std::string client_id;
  std::string redirect_uri;    // exactly as sent to /authorize (RFC 6749 §4.1.3)
  std::string user_id;
  std::string username;
  std::string scope;           // granted scopes, space-separated
  std::string nonce;           // "" when none was sent
  std::string code_challenge;  // S256 challenge, "" when none
  std::string amr;             // how the user signed in ("pwd", "pwd otp", ...)
  std::int64_t auth_time = 0;  // when the user signed in (Unix seconds)
  std::string sid{};           // the browser session's sid (session_id_of), for the ID token; "" none
  std::string issuer{};        // the issuer /authorize answered as (the RP session's, for logout tokens)
};

// What a first redemption issued: recorded so that a replay can revoke it.
// Only handles are kept, never a usable token: the refresh family's id (the
// family ends without its secret) and the access token's jti.
struct IssuedForCode {
  std::string refresh_family;  // "" when none (the grant's user_id owns it)
  std::string access_jti;     // the access token's jti
  std::int64_t access_exp = 0;
};

// The outcome of a refused replay: what to revoke.
struct CodeReplay {
  CodeGrant grant;
  IssuedForCode issued;
};

inline constexpr std::int64_t kAuthorizationCodeTtl = 60;

class AuthorizationCodes {
 public:
  // `rp_session_ttl`: how long a redemption's RP session is remembered for
  // back-channel logout (record_rp_session, authd/backchannel_logout.hpp).
  explicit AuthorizationCodes(Store& store, std::chrono::seconds rp_session_ttl = std::chrono::hours(24))
      : store_(store), rp_session_ttl_(rp_session_ttl) {}

  // A new code for `grant`. Errors: storage_full, unavailable, internal.
  Result<std::string> issue(const CodeGrant& grant, std::int64_t now);

  // Redeems `code` once and, in the same transaction, records the RP
  // session (the grant's user, client and sid) when the client has a
  // backchannel_logout_uri. `replay` is filled (and invalid_token returned) when
  // the code was redeemed before. Errors: invalid_token (unknown, expired,
  // used), storage errors.
  Result<CodeGrant> redeem(std::string_view code, std::int64_t now, CodeReplay* replay = nullptr);

  // Notes what the redemption of `code` issued. Best effort.
  Result<void> record_issued(std::string_view code, const IssuedForCode& issued, std::int64_t now);

 private:
  Store& store_;
  std::chrono::seconds rp_session_ttl_;
};

// RFC 7636 §4.6 with S256: `verifier` is 43 to 128 of [A-Za-z0-9-._~] and
// base64url(SHA-256(verifier)) equals `challenge` (compared in constant time).
bool pkce_s256_matches(std::string_view verifier, std::string_view challenge);
// A challenge as /authorize accepts it: 43 base64url characters (a SHA-256).
bool valid_pkce_challenge(std::string_view challenge);

}  // namespace authd
