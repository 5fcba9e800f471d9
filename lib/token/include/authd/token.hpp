// Compact JWS tokens (RFC 7515/7519), verified strictly (RFC 8725): the
// algorithm is pinned to the key and checked before any signature is; each
// token kind has its own `typ`, audience and key (see the kinds below), so
// that, say, an OAuth state cookie or an OpenID client's access token can
// never pass as the user's session, here or in a resource server that
// follows docs/tokens-and-keys.md.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "authd/crypto.hpp"
#include "authd/error.hpp"
#include "authd/key_ring.hpp"
#include "authd/settings.hpp"
#include "authd/signing_key.hpp"

namespace authd {

namespace token_detail {
class VerifiedTokenCache;
}

// Token kinds, named by what issue() and verify() take.
// The user's session (authd's own access token): typ "at+jwt" (RFC 9068),
// aud token_audience, signed with the access-token key (the HMAC key with
// HS256, the key ring with EdDSA/ES256, published as the JWKS). The only
// kind a resource server accepts.
inline constexpr std::string_view kAccessTokenType = "at+jwt";
// An OpenID client's access token (POST /token): typ "at+jwt" and the same
// keys, but `aud` is the client id alone (extra "aud" when issued, never
// token_audience) and it names the client in its client_id claim; verified
// against that claim, and refused if its aud holds token_audience. Also the
// verified-token cache's key for such tokens, apart from sessions.
inline constexpr std::string_view kClientAccessKind = "at+jwt client";
// The access-token claim naming the OpenID client a token was issued to.
inline constexpr std::string_view kClientIdClaim = "client_id";
// A service client's own token (the client_credentials grant) is a session
// token (kAccessTokenType) whose `sub` and `name` are "client:" + its client
// id: no user's _id (hex) or username (A-Z a-z 0-9 . _ @ + -) holds a ':', so
// it names no user. The guard resolves it to the client and its role.
inline constexpr std::string_view kServiceSubjectPrefix = "client:";
inline bool is_service_subject(std::string_view subject) noexcept { return subject.starts_with(kServiceSubjectPrefix); }
// authd's own other tokens: typ "authd-<name>+jwt", aud "authd:<name>",
// always HS256 under a key of the kind's own, HMAC-SHA256(signing key,
// "authd token kind " + typ): no JWKS nor the HMAC key itself verifies them,
// and no kind verifies as another.
inline constexpr std::string_view kOAuthStateTokenType = "authd-state+jwt";
inline constexpr std::string_view kChallengeTokenType = "authd-webauthn+jwt";  // WebAuthn challenges
inline constexpr std::string_view kDeviceTokenType = "authd-device+jwt";       // the authd_device cookie
// The access-token claim (a number, as OpenID Connect's) saying when the user
// last authenticated: set at sign-in and kept by every refresh of the session,
// so that /authorize's max_age asks for a new sign-in after that long however
// often the token was refreshed. TokenClaims::extra holds it as decimal text.
inline constexpr std::string_view kAuthTimeClaim = "auth_time";

// HS256 (the secret key, the default) or a public-key algorithm whose keys
// live in a KeyRing and are published as a JWKS.
enum class TokenAlgorithm { hs256, eddsa, es256 };

struct TokenPolicy {
  TokenAlgorithm algorithm = TokenAlgorithm::hs256;
  std::string issuer = "authd";
  std::string audience = "authd";
  std::chrono::seconds ttl{3600};
  std::chrono::seconds leeway{0};  // tolerated clock skew on exp/nbf/iat
  std::size_t cache_entries = 8192;  // verified tokens remembered per process; 0 = none
};

// token_algorithm, token_ttl, token_leeway, token_issuer, token_audience, token_cache_entries.
std::vector<settings::Setting> token_settings(TokenPolicy& policy);

struct TokenClaims {
  std::string subject;    // sub: the user's _id
  std::string username;   // name
  std::int64_t issued_at = 0;   // iat
  std::int64_t expires_at = 0;  // exp
  std::string token_id;   // jti: random, so every token is fresh
  std::map<std::string, std::string, std::less<>> extra;  // further string claims
};

class TokenService {
 public:
  // Error: config if the key is shorter than kMinSigningKeyBytes.
  // With a public-key algorithm, `ring` holds its keys (required then).
  static Result<TokenService> create(SigningKey key, TokenPolicy policy, std::shared_ptr<KeyRing> ring = nullptr);

  // Signs a token of kind `type` (one of the kinds above) for
  // `subject`/`username`, valid from `now` for policy.ttl (or `ttl_override`
  // when positive). `extra` string claims are added as is (they may not
  // shadow a registered claim), but for "aud": kClientAccessKind's audience,
  // the client id (required there, ignored elsewhere).
  // Precondition: every string is valid UTF-8 without NUL (JSON cannot carry
  // it back); authd's callers pass ASCII only (validated usernames, hex ids,
  // base64url state). Throws std::invalid_argument for an unknown kind, or a
  // client audience that is token_audience or "authd:..." (a caller's bug).
  std::string issue(std::string_view type, std::string_view subject, std::string_view username,
                    std::int64_t now,
                    const std::map<std::string, std::string, std::less<>>& extra = {},
                    std::chrono::seconds ttl_override = std::chrono::seconds{0}) const;

  // Verifies everything: exactly three unpadded base64url parts; header and
  // payload JSON objects without duplicate members; alg exactly the kind's
  // (HS256, or the ring's for sessions and client tokens); typ exactly the
  // kind's; no `crit`; signature with the kind's key; iss, the kind's aud; exp
  // required and in the future; nbf and iat honoured; sub required.
  // jku/x5u/jwk/kid headers are never dereferenced. A token that verified
  // before is recognised from a bounded in-memory cache (policy.cache_entries),
  // with exp/nbf checked again.
  // Error: invalid_token, message says why (for logs, never for clients).
  Result<TokenClaims> verify(std::string_view token, std::string_view type,
                             std::int64_t now) const;
  // The same, the claims shared read-only with the cache instead of copied
  // out of it (the guard's way, on every protected request).
  // `check_unknown`, when given, is run on a token the cache does not
  // recognise, before anything else is checked, its error returned as is: a
  // caller's own syntax rule (RFC 6750's b64token), which a token verified
  // before passed already, so that a known token skips it.
  using UnknownTokenCheck = Result<void> (*)(std::string_view token);
  Result<std::shared_ptr<const TokenClaims>> verify_shared(std::string_view token, std::string_view type,
                                                           std::int64_t now,
                                                           UnknownTokenCheck check_unknown = nullptr) const;

  const TokenPolicy& policy() const noexcept { return policy_; }

  // Lookups in the verified-token cache of this process (for metrics).
  struct CacheCounts {
    std::uint64_t hits = 0;
    std::uint64_t misses = 0;
  };
  CacheCounts cache_counts() const noexcept;
  // The public keys as a JWK Set (RFC 7517) text; nullopt with HS256.
  std::optional<std::string> jwks() const;
  // The keys of the ring (nullptr with HS256), checked now.
  std::shared_ptr<const KeyRing::Keys> public_keys() const;
  // "HS256", "EdDSA" or "ES256".
  std::string_view algorithm_name() const noexcept;

 private:
  TokenService(const SigningKey& key, TokenPolicy policy, std::shared_ptr<KeyRing> ring);
  std::string issue_public_key(std::string_view type, std::string payload_b64, std::int64_t now) const;
  // The ring's keys for a verification, emptying the cache when they changed.
  std::shared_ptr<const KeyRing::Keys> ring_keys(std::int64_t now) const;
  // The claims of a token of kind `type` that verified before and is still
  // valid at `now` (the cache, emptied first if the key set changed); null
  // when the cache does not hold it or is disabled.
  std::shared_ptr<const TokenClaims> recognise(std::string_view token, std::string_view type, std::int64_t now) const;
  Result<TokenClaims> verify_uncached(std::string_view token, std::string_view type, std::int64_t now,
                                      std::int64_t& valid_from) const;
  // One of authd's own other kinds (kOAuthStateTokenType, ...): its key
  // and what it writes and requires.
  struct OwnKind {
    std::string_view typ;
    std::string audience;  // "authd:<name>"
    std::string header;    // base64url of {"alg":"HS256","typ":typ}
    crypto::HmacSha256 mac;
  };
  // The own kind named `type`; null for a session or client kind (or an unknown one).
  const OwnKind* own_kind(std::string_view type) const noexcept;

  crypto::HmacSha256 mac_;  // the key lives only inside the precomputed HMAC states
  std::vector<OwnKind> own_kinds_;  // each with its derived key
  TokenPolicy policy_;
  std::string access_header_;  // the HS256 header of sessions and client tokens, precomputed
  std::shared_ptr<token_detail::VerifiedTokenCache> cache_;  // null when disabled
  std::shared_ptr<KeyRing> ring_;                             // public-key algorithms only
  std::shared_ptr<std::atomic<std::int64_t>> cached_version_ = std::make_shared<std::atomic<std::int64_t>>(0);
};

// A JWK Set (RFC 7517) text of every key in `rings` (nullptr entries
// skipped), each with its kid, alg (the key's own) and use "sig".
std::string jwk_set(const std::vector<std::shared_ptr<const KeyRing::Keys>>& rings);

}  // namespace authd
