// ID tokens of authd as OpenID provider (OpenID Connect Core 1.0 §2,
// §3.1.3.6), signed with the ID-token key ring (id_token_algorithm, RS256 by
// default), and the id_token_hint check of RP-initiated logout.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "authd/error.hpp"
#include "authd/json.hpp"
#include "authd/key_ring.hpp"

namespace authd {

struct IdToken {
  std::string issuer;
  std::string subject;    // the user's _id: stable, unlike a username
  std::string audience;   // the client_id
  std::string nonce;      // "" when /authorize had none
  std::string amr;        // space-separated ("pwd", "pwd otp"); written as an array
  std::int64_t auth_time = 0;
  std::string access_token;  // its at_hash is included when not empty
  std::string sid{};         // the session id (back-channel logout, session_id_of); "" none
};

inline constexpr std::int64_t kIdTokenTtl = 300;

// acr: as the second-factor methods declare it (second_factor_acr,
// second_factor_methods.hpp): "2" when amr shows a second factor (built in:
// otp, hwk), else "1".
std::string acr_of(std::string_view amr);

// base64url of the left half of SHA-256(access_token) (§3.1.3.6; SHA-256 is
// the hash of RS256 and ES256, and the one authd uses for EdDSA too).
std::string at_hash(std::string_view access_token);

// The signed token (JWS with the ring's current key; typ "JWT", kid).
// Error: unavailable while the key storage has never been reached.
Result<std::string> sign_id_token(KeyRing& ring, const IdToken& token, std::int64_t now);

// The claims of an ID token authd issued (signature by a key of the ring,
// alg pinned to it, iss): an expired one is accepted (a hint, RP-initiated
// logout 1.0 §2). Error: invalid_token.
Result<Json> verify_id_token_hint(KeyRing& ring, std::string_view token, std::string_view issuer, std::int64_t now);

}  // namespace authd
