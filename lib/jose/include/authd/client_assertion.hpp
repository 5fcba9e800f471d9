// Client authentication with a signed JWT: private_key_jwt (RFC 7523 §2.2,
// §3; OpenID Connect Core 1.0 §9). An OpenID client that keeps no shared
// secret signs a short-lived assertion with one of the keys of its
// registered JWK Set and sends it as client_assertion with
// client_assertion_type kClientAssertionType. Validated strictly, no
// network and no store here (lib/oidc/client_assertions.cpp fetches a
// jwks_uri and remembers every jti against replay):
//   - the algorithm is one of RS256, ES256, EdDSA (or Ed25519) and the key's own (never
//     `none`, never an HMAC), chosen from the client's keys by `kid` (or the
//     one key of that algorithm when there is no kid); no `crit`; jku, x5u,
//     jwk and x5c headers are never followed;
//   - iss = sub = the client id; aud holds one of the accepted audiences (the
//     token endpoint's URL, the issuer);
//   - exp required, in the future, and at most max_lifetime ahead; nbf and
//     iat, when present, not in the future (leeway allowed);
//   - jti required, 1 to 256 characters.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "authd/crypto.hpp"
#include "authd/error.hpp"

namespace authd::jose {

inline constexpr std::string_view kClientAssertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";
// The signature algorithms a client's assertion may use (discovery's
// token_endpoint_auth_signing_alg_values_supported). "Ed25519" is the fully
// specified name of EdDSA over Ed25519 (RFC 9864), which openid-client's
// PrivateKeyJwt writes for an Ed25519 key: the same check.
inline constexpr std::string_view kClientAssertionAlgorithms[] = {"RS256", "ES256", "EdDSA", "Ed25519"};
// The longest assertion read at all (a compact JWS of an RSA-4096 signature
// and a few claims is well under 2 KiB).
inline constexpr std::size_t kMaxClientAssertion = 8192;

// A client's public keys, from its registered JWK Set (RFC 7517): RSA of
// at least 2048 bits (RS256), EC P-256 (ES256), OKP Ed25519 (EdDSA). A key
// with `use` other than "sig" or an `alg` other than its type's is skipped.
class ClientKeys {
 public:
  // Error invalid_input (field "jwks"): not a JWK Set, a key with private
  // members (d, p, q, ...: a client must never send its private key), or no
  // usable signing key at all.
  static Result<ClientKeys> parse(std::string_view jwks);
  // The key with this kid whose algorithm is `alg`; without a kid, the one
  // key of that algorithm (nullptr when there are several, or none).
  const crypto::PublicKey* find(std::string_view kid, std::string_view alg) const;
  std::size_t size() const noexcept { return keys_.size(); }

 private:
  std::vector<std::pair<std::string, crypto::PublicKey>> keys_;
};

// What an assertion says before any signature is checked: which client it
// claims to come from (to find its keys) and which key signed it.
struct UnverifiedAssertion {
  std::string algorithm, key_id, issuer, subject;
};

// Error invalid_token (message says why, for logs): not a compact JWS of
// JSON objects, too long, an algorithm outside the allow-list, iss or sub
// missing or different.
Result<UnverifiedAssertion> peek_client_assertion(std::string_view assertion);

struct ClientAssertionChecks {
  std::string client_id;
  std::vector<std::string> audiences;  // aud must hold one of them
  std::int64_t now = 0;
  std::int64_t leeway = 30;         // seconds of clock skew allowed on exp, nbf, iat
  std::int64_t max_lifetime = 300;  // exp at most this far past now
};

struct VerifiedAssertion {
  std::string jti;
  std::int64_t expires_at = 0;  // exp
};

// Every check above. Error invalid_token (why, for logs and the audit line);
// not_found when no key of `keys` has the assertion's kid and algorithm
// (the client may have rotated: its jwks_uri is worth fetching again).
Result<VerifiedAssertion> verify_client_assertion(std::string_view assertion, const ClientKeys& keys,
                                                  const ClientAssertionChecks& checks);

}  // namespace authd::jose
