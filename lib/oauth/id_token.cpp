// JWKS parsing and OpenID Connect ID-token verification.
#include <array>

#include "authd/jws.hpp"
#include "authd/oauth.hpp"

namespace authd {
namespace {

std::unexpected<Error> bad(std::string why) { return fail(Errc::upstream_failed, "ID token rejected: " + why); }

Result<Json> decode_part(std::string_view part, std::string_view what) {
  auto json = jws::decode_object(part, what, 8);
  if (!json) return bad(std::move(json.error()));
  return std::move(*json);
}

}  // namespace

bool same_issuer(std::string_view a, std::string_view b) noexcept {
  if (a.ends_with('/')) a.remove_suffix(1);
  if (b.ends_with('/')) b.remove_suffix(1);
  return !a.empty() && a == b;
}

Result<Jwks> Jwks::parse(std::string_view json) {
  auto doc = Json::parse(json, 8);
  if (!doc || !doc->is_object() || !doc->get("keys").is_array()) return bad("the JWKS is not a JWK Set");
  Jwks jwks;
  const Json keys = doc->get("keys");
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const Json jwk = keys.at(i);
    if (jwk.get_string("use").value_or("sig") != "sig") continue;
    const auto kty = jwk.get_string("kty").value_or("");
    const auto declared_alg = jwk.get_string("alg");
    Result<crypto::PublicKey> key = fail(Errc::invalid_input, "unsupported key");
    if (kty == "RSA") {
      key = crypto::PublicKey::rsa(jwk.get_string("n").value_or(""), jwk.get_string("e").value_or(""));
    } else if (kty == "EC" && jwk.get_string("crv") == "P-256") {
      key = crypto::PublicKey::ec_p256(jwk.get_string("x").value_or(""), jwk.get_string("y").value_or(""));
    }
    // A key pinned to another algorithm than its type implies is not used.
    if (!key || (declared_alg && *declared_alg != key->algorithm())) continue;
    jwks.keys_.emplace_back(std::string(jwk.get_string("kid").value_or("")), std::move(*key));
  }
  return jwks;
}

const crypto::PublicKey* Jwks::find(std::string_view kid, std::string_view alg) const {
  const crypto::PublicKey* only = nullptr;
  std::size_t usable = 0;
  for (const auto& [key_id, key] : keys_) {
    if (key.algorithm() != alg) continue;
    if (!kid.empty() && key_id == kid) return &key;
    ++usable;
    only = &key;
  }
  return kid.empty() && usable == 1 ? only : nullptr;
}

Result<Json> verify_id_token(std::string_view id_token, const Jwks& keys, const IdTokenChecks& checks) {
  const auto parts = jws::split(id_token);
  if (!parts) return bad("not a three-part JWS");
  auto header = decode_part(parts->header, "header");
  if (!header) return std::unexpected(header.error());
  // Allow-list before any cryptography: never none, never HS* (an HMAC keyed
  // with a public key is the classic confusion attack).
  const auto alg = header->get_string("alg").value_or("");
  if (alg != "RS256" && alg != "ES256") return bad("algorithm '" + std::string(alg) + "' not allowed");
  if (header->has("crit")) return bad("unsupported critical header");
  const crypto::PublicKey* key = keys.find(header->get_string("kid").value_or(""), alg);
  if (!key) return fail(Errc::not_found, "ID token rejected: no provider key matches its kid");
  auto signature = crypto::base64url_decode(parts->signature);
  if (!signature || !key->verify(parts->signing_input, *signature)) return bad("bad signature");

  auto claims = decode_part(parts->payload, "payload");
  if (!claims) return std::unexpected(claims.error());
  if (!same_issuer(claims->get_string("iss").value_or(""), checks.issuer)) return bad("wrong issuer");
  const Json aud = claims->get("aud");
  if (!jws::audience_contains(aud, checks.audience)) return bad("not issued to this client (aud)");
  if (aud.is_array() && aud.size() > 1 && claims->get_string("azp") != checks.audience) return bad("wrong azp");
  const auto leeway = checks.leeway.count();
  const auto exp = claims->get_integer("exp");
  if (!exp || checks.now - leeway >= *exp) return bad("expired");
  const auto iat = claims->get_integer("iat");
  if (!iat || *iat > checks.now + leeway) return bad("iat missing or in the future");
  const auto nonce = claims->get_string("nonce");
  if (!checks.nonce.empty() && (!nonce || !crypto::equal_constant_time(*nonce, checks.nonce))) {
    return bad("nonce does not match this sign-in");
  }
  return claims;
}

Result<ExternalIdentity> identity_from_claims(const OAuthProvider& provider, const Json& claims) {
  auto text = [&](std::string_view name) -> std::string {
    const Json value = claims.get(name);
    if (auto s = value.as_string()) return std::string(*s);
    if (auto n = value.as_integer()) return std::to_string(*n);
    return {};
  };
  ExternalIdentity identity;
  identity.provider = provider.name;
  // The configured claim and no other: falling back to `sub` could link two
  // different users of a provider whose `sub` is not what the operator chose.
  identity.subject = text(provider.subject_claim);
  if (identity.subject.empty() || identity.subject.size() > 255) {
    return fail(Errc::upstream_failed, "the provider named no usable subject (" + provider.subject_claim + ") for the user");
  }
  // An e-mail address the provider has not verified is anybody's claim: it
  // never names or links an account, and is not stored.
  const Json verified = claims.get("email_verified");
  const bool email_verified = verified.is_true() || text("email_verified") == "true";
  const std::string email = email_verified ? text("email") : std::string();
  for (auto claim : {std::string_view(provider.username_claim), std::string_view("preferred_username"),
                     std::string_view("login"), std::string_view("email"), std::string_view("name")}) {
    identity.username_hint = claim == "email" ? email : text(claim);
    if (!identity.username_hint.empty()) break;
  }
  identity.fullname = text("name");
  identity.email = email;
  return identity;
}

}  // namespace authd
