// Third-party sign-in: the authorization-code flow with PKCE (RFC 6749,
// RFC 7636) against an OpenID Connect provider (identity from a verified ID
// token) or a plain OAuth 2.0 provider (identity from its userinfo/user
// endpoint, GitHub style).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "authd/crypto.hpp"
#include "authd/error.hpp"
#include "authd/http_client.hpp"
#include "authd/json.hpp"
#include "authd/oauth_config.hpp"
#include "authd/token.hpp"
#include "authd/user.hpp"

namespace authd {

// RFC 7636: a 43-character verifier and its S256 challenge.
struct Pkce {
  std::string verifier;
  std::string challenge;
  static Pkce generate();
  static std::string challenge_for(std::string_view verifier);  // base64url(sha256(verifier))
};

// What travels in the signed, short-lived state cookie between the start of
// a sign-in and its completion.
struct OAuthState {
  std::string provider;
  std::string state;     // also sent to the provider; must come back unchanged
  std::string verifier;  // PKCE code_verifier
  std::string nonce;     // OpenID Connect nonce, bound into the ID token
  // The browser's device cookie at the start ("" = none): the redirect back
  // is cross-site and brings no SameSite=Strict cookie, yet the sign-in must
  // know whether the device is new (authd/sign_in.hpp).
  std::string device{};
};

// Signs `state` as a token of kind kOAuthStateTokenType, valid for `ttl`.
std::string seal_oauth_state(const TokenService& tokens, const OAuthState& state, std::int64_t now,
                             std::chrono::seconds ttl);
// Error access_denied if the cookie is not a valid, unexpired state token of
// ours (an access token or anything else is refused by its `typ`).
Result<OAuthState> open_oauth_state(const TokenService& tokens, std::string_view cookie, std::int64_t now);

// A provider's signing keys (RFC 7517 JWK Set); RSA (RS256) and EC P-256
// (ES256) keys for signatures; others are skipped.
class Jwks {
 public:
  static Result<Jwks> parse(std::string_view json);
  // The key with this kid (any key when kid is empty and there is just one
  // usable key) whose algorithm is `alg`; nullptr if none.
  const crypto::PublicKey* find(std::string_view kid, std::string_view alg) const;
  std::size_t size() const noexcept { return keys_.size(); }

 private:
  std::vector<std::pair<std::string, crypto::PublicKey>> keys_;
};

// Issuer identifiers are compared exactly, except that one trailing '/' on
// either side is ignored ("https://id.example.com" and "https://id.example.com/"
// name the same issuer; operators copy either form).
bool same_issuer(std::string_view a, std::string_view b) noexcept;

struct IdTokenChecks {
  std::string issuer;
  std::string audience;  // our client_id
  std::string nonce;
  std::int64_t now = 0;
  std::chrono::seconds leeway{60};
};

// OpenID Connect Core §3.1.3.7: algorithm from an allow-list (RS256, ES256;
// never none or HS*), signature against the JWKS key named by kid, iss, aud
// (and azp when several audiences), exp, iat, nonce. Returns the claims.
// Error bad_gateway naming the failed check.
Result<Json> verify_id_token(std::string_view id_token, const Jwks& keys, const IdTokenChecks& checks);

// Reads subject, username hint, name and email from ID-token or userinfo
// claims. Error bad_gateway when there is no usable subject (or one over 255
// characters).
Result<ExternalIdentity> identity_from_claims(const OAuthProvider& provider, const Json& claims);

// One configured provider: builds authorization URLs and completes sign-ins.
// Thread-safe; discovery metadata and JWKS are fetched once and cached (the
// JWKS again when an unknown kid shows up, at most every 30 s).
class OAuthClient {
 public:
  OAuthClient(OAuthProvider provider, HttpTimeouts timeouts);

  const OAuthProvider& provider() const noexcept { return provider_; }

  // The provider's authorization URL for `state` (response_type=code,
  // client_id, redirect_uri, scope, state, code_challenge, S256, nonce).
  // Errors: bad_gateway / gateway_timeout if discovery fails.
  Result<std::string> authorization_url(const OAuthState& state, std::string_view code_challenge);

  // Exchanges `code` (with the PKCE verifier and client credentials) and
  // returns the verified identity. Errors: bad_request (the provider refused
  // the code: expired, reused, wrong verifier), bad_gateway (provider error,
  // bad ID token), gateway_timeout.
  Result<ExternalIdentity> complete(std::string_view code, const OAuthState& state, std::int64_t now);

 private:
  struct Endpoints {
    std::string issuer, authorization, token, userinfo, jwks;
  };
  Result<Endpoints> endpoints();
  Result<std::shared_ptr<const Jwks>> jwks(bool refresh);
  Result<Json> exchange_code(const Endpoints& endpoints, std::string_view code, const OAuthState& state);
  Result<Json> fetch_userinfo(const Endpoints& endpoints, std::string_view access_token);

  OAuthProvider provider_;
  HttpClient http_;
  std::mutex mutex_;  // guards the caches below
  std::optional<Endpoints> endpoints_;
  std::shared_ptr<const Jwks> jwks_;
  std::int64_t jwks_fetched_at_ = 0;
};

}  // namespace authd
