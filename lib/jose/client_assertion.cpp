// private_key_jwt client assertions (authd/client_assertion.hpp).
#include "authd/client_assertion.hpp"

#include <algorithm>

#include "authd/json.hpp"
#include "authd/jws.hpp"

namespace authd::jose {
namespace {

constexpr std::size_t kMaxKeys = 20;
constexpr std::size_t kMaxJwks = 64 * 1024;
constexpr std::size_t kMaxJti = 256;

// "Ed25519" (RFC 9864) names what an Ed25519 key's "EdDSA" does.
std::string_view key_algorithm(std::string_view alg) { return alg == "Ed25519" ? "EdDSA" : alg; }

std::unexpected<Error> bad(std::string why) { return fail(Errc::invalid_token, "client assertion rejected: " + why); }

bool allowed_algorithm(std::string_view alg) {
  return std::ranges::find(kClientAssertionAlgorithms, alg) != std::end(kClientAssertionAlgorithms);
}

Result<Json> part(std::string_view text, std::string_view what) {
  auto json = jws::decode_object(text, what, 4);
  if (!json) return bad(std::move(json.error()));
  return std::move(*json);
}

}  // namespace

Result<ClientKeys> ClientKeys::parse(std::string_view jwks) {
  auto invalid = [](std::string why) { return fail_field("jwks", "jwks: " + why); };
  if (jwks.size() > kMaxJwks) return invalid("longer than 64 KiB");
  auto doc = Json::parse(jwks, 8);
  if (!doc || !doc->is_object() || !doc->get("keys").is_array()) return invalid("not a JWK Set ({\"keys\":[...]})");
  const Json keys = doc->get("keys");
  if (keys.size() > kMaxKeys) return invalid("more than 20 keys");
  ClientKeys out;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const Json jwk = keys.at(i);
    if (!jwk.is_object()) return invalid("a key is not a JSON object");
    for (const auto* secret : {"d", "p", "q", "dp", "dq", "qi", "k", "oth"}) {
      if (jwk.has(secret)) return invalid("a key holds private members: register the public keys only");
    }
    if (jwk.get_string("use").value_or("sig") != "sig") continue;
    const auto kty = jwk.get_string("kty").value_or("");
    const auto crv = jwk.get_string("crv").value_or("");
    Result<crypto::PublicKey> key = fail(Errc::invalid_input, "unsupported key");
    if (kty == "RSA") {
      key = crypto::PublicKey::rsa(jwk.get_string("n").value_or(""), jwk.get_string("e").value_or(""));
    } else if (kty == "EC" && crv == "P-256") {
      key = crypto::PublicKey::ec_p256(jwk.get_string("x").value_or(""), jwk.get_string("y").value_or(""));
    } else if (kty == "OKP" && crv == "Ed25519") {
      key = crypto::PublicKey::ed25519(jwk.get_string("x").value_or(""));
    }
    const auto declared_alg = jwk.get_string("alg");
    if (!key || (declared_alg && key_algorithm(*declared_alg) != key->algorithm())) continue;
    out.keys_.emplace_back(std::string(jwk.get_string("kid").value_or("")), std::move(*key));
  }
  if (out.keys_.empty()) return invalid("no usable signing key (RSA of 2048 bits or more, EC P-256, OKP Ed25519)");
  return out;
}

const crypto::PublicKey* ClientKeys::find(std::string_view kid, std::string_view alg) const {
  alg = key_algorithm(alg);
  const crypto::PublicKey* only = nullptr;
  std::size_t usable = 0;
  for (const auto& [key_id, key] : keys_) {
    if (key.algorithm() != alg) continue;
    if (!kid.empty()) {
      if (key_id == kid) return &key;
      continue;
    }
    ++usable;
    only = &key;
  }
  return kid.empty() && usable == 1 ? only : nullptr;
}

Result<UnverifiedAssertion> peek_client_assertion(std::string_view assertion) {
  if (assertion.size() > kMaxClientAssertion) return bad("longer than 8 KiB");
  const auto parts = jws::split(assertion);
  if (!parts) return bad("not a three-part JWS");
  auto header = part(parts->header, "header");
  if (!header) return std::unexpected(header.error());
  auto claims = part(parts->payload, "payload");
  if (!claims) return std::unexpected(claims.error());
  UnverifiedAssertion peeked;
  peeked.algorithm = std::string(header->get_string("alg").value_or(""));
  // The allow-list before anything else: never none, never an HMAC (a
  // client's public key used as an HMAC secret is the classic confusion).
  if (!allowed_algorithm(peeked.algorithm)) return bad("algorithm '" + peeked.algorithm + "' not allowed");
  if (header->has("crit")) return bad("unsupported critical header");
  peeked.key_id = std::string(header->get_string("kid").value_or(""));
  peeked.issuer = std::string(claims->get_string("iss").value_or(""));
  peeked.subject = std::string(claims->get_string("sub").value_or(""));
  if (peeked.issuer.empty() || peeked.subject.empty()) return bad("iss and sub are required");
  if (peeked.issuer != peeked.subject) return bad("iss and sub differ");
  return peeked;
}

Result<VerifiedAssertion> verify_client_assertion(std::string_view assertion, const ClientKeys& keys,
                                                  const ClientAssertionChecks& checks) {
  auto peeked = peek_client_assertion(assertion);
  if (!peeked) return std::unexpected(peeked.error());
  if (peeked->subject != checks.client_id) return bad("iss and sub are not the client");
  const crypto::PublicKey* key = keys.find(peeked->key_id, peeked->algorithm);
  if (!key) {
    return fail(Errc::not_found, "client assertion rejected: no key of the client's JWK Set matches (kid '" +
                                     peeked->key_id + "', " + peeked->algorithm + ")");
  }
  const auto parts = jws::split(assertion);
  auto signature = crypto::base64url_decode(parts->signature);
  if (!signature || !key->verify(parts->signing_input, *signature)) return bad("bad signature");

  auto claims = part(parts->payload, "payload");
  if (!claims) return std::unexpected(claims.error());
  const Json aud = claims->get("aud");
  const bool ours = std::ranges::any_of(checks.audiences, [&](const std::string& a) { return jws::audience_contains(aud, a); });
  if (!ours) return bad("aud is not this provider's token endpoint or issuer");
  const auto exp = claims->get_integer("exp");
  if (!exp) return bad("exp is required");
  if (*exp <= checks.now - checks.leeway) return bad("expired");
  if (*exp > checks.now + checks.max_lifetime + checks.leeway) {
    return bad("exp is more than " + std::to_string(checks.max_lifetime) + " s ahead");
  }
  for (const auto* name : {"nbf", "iat"}) {
    if (!claims->has(name)) continue;
    const auto at = claims->get_integer(name);
    if (!at || *at > checks.now + checks.leeway) return bad(std::string(name) + " is not a time in the past");
  }
  VerifiedAssertion verified;
  verified.jti = std::string(claims->get_string("jti").value_or(""));
  if (verified.jti.empty() || verified.jti.size() > kMaxJti) return bad("jti is required (1 to 256 characters)");
  verified.expires_at = *exp;
  return verified;
}

}  // namespace authd::jose
