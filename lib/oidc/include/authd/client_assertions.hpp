// private_key_jwt at the OpenID provider's client endpoints (RFC 7523 §2.2,
// §3; OpenID Connect Core 1.0 §9): which registered client a signed
// client_assertion authenticates. The assertion is checked by
// authd/client_assertion.hpp (lib/jose) against the client's registered
// JWK Set, or the one its jwks_uri serves (fetched with lib/oauth's
// HttpClient, https or loopback only, short timeouts, kept kJwksCacheSeconds
// and fetched again early, at most every kJwksRefetchSeconds, when no key
// matches a kid: the client rotated its keys). Every jti is remembered in
// the store (namespace "oidc_assertion_jti", until the assertion's exp plus
// the leeway) in the same write transaction that checks it, so an
// assertion is accepted once, whichever node it reaches (PostgreSQL). Every
// 64th accepted assertion of a process also purges the store's expired
// entries, so the jti entries stay bounded under a steady load.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "authd/error.hpp"
#include "authd/http_client.hpp"
#include "authd/oidc_clients.hpp"
#include "authd/store.hpp"

namespace authd {

inline constexpr std::string_view kAssertionJtiNamespace = "oidc_assertion_jti";
inline constexpr std::int64_t kAssertionMaxLifetime = 300;  // exp at most 5 minutes ahead
inline constexpr std::int64_t kAssertionLeeway = 30;        // clock skew allowed
inline constexpr std::int64_t kJwksCacheSeconds = 300;
inline constexpr std::int64_t kJwksRefetchSeconds = 30;

class ClientAssertions {
 public:
  ClientAssertions(Store& store, OidcClients& clients);

  // The client `assertion` authenticates: a private_key_jwt client whose
  // id is the assertion's iss and sub (and `claimed_id`, the form's
  // client_id, when given), the assertion valid for one of `audiences`
  // (the token endpoint's URL, the issuer) and its jti never seen before.
  // Errors: invalid_login for every refusal (the message says why, for the
  // audit line; never for the client), unavailable or internal (the store).
  Result<OidcClient> authenticate(std::string_view assertion, std::string_view claimed_id,
                                  const std::vector<std::string>& audiences, std::int64_t now);

 private:
  // The JWK Set text of a jwks_uri: cached, fetched when stale (or, with
  // `refetch`, when older than kJwksRefetchSeconds). Error invalid_login.
  Result<std::string> fetched_jwks(std::string_view uri, std::int64_t now, bool refetch);

  struct Fetched {
    std::string jwks;  // "" when the last fetch failed
    std::int64_t at = 0;
  };
  Store& store_;
  OidcClients& clients_;
  HttpClient http_;
  std::mutex mutex_;
  std::map<std::string, Fetched, std::less<>> fetched_;
  std::atomic<std::uint64_t> accepted_{0};  // every 64th also drops expired entries
};

}  // namespace authd
