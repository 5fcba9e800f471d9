#include "webauthn.hpp"

#include "cbor.hpp"
#include "authd/crypto.hpp"
#include "authd/json.hpp"

namespace authd::webauthn {
namespace {

constexpr std::int64_t kCoseKty = 1, kCoseAlg = 3, kCoseCrv = -1, kCoseX = -2, kCoseY = -3;
constexpr std::int64_t kKtyOkp = 1, kKtyEc2 = 2;
constexpr std::int64_t kAlgEs256 = -7, kAlgEdDsa = -8;
constexpr std::int64_t kCrvP256 = 1, kCrvEd25519 = 6;

std::unexpected<Error> refuse(std::string why) { return fail(Errc::mfa_failed, "WebAuthn: " + std::move(why)); }

std::string_view as_view(const crypto::Sha256Digest& digest) {
  return {reinterpret_cast<const char*>(digest.data()), digest.size()};
}

// §7.1 steps 7-12 / §7.2 steps 11-16: type, challenge, origin (and not cross-origin).
Result<void> check_client_data(const Policy& policy, std::string_view expected_type, std::string_view challenge,
                               std::string_view client_data_json) {
  auto client = Json::parse(client_data_json, 8);
  if (!client || !client->is_object()) return refuse("clientDataJSON is not a JSON object");
  if (client->get_string("type").value_or("") != expected_type) return refuse("clientDataJSON.type is not " + std::string(expected_type));
  const auto presented = client->get_string("challenge").value_or("");
  const auto expected = crypto::base64url_encode(challenge);
  if (!crypto::equal_constant_time(presented, expected)) return refuse("the challenge does not match");
  const auto origin = client->get_string("origin").value_or("");
  bool allowed = false;
  for (const auto& o : policy.origins) allowed = allowed || o == origin;
  if (!allowed) return refuse("origin " + std::string(origin) + " is not allowed");
  const Json cross = client->get("crossOrigin");
  if (!cross.is_null() && cross.dump() == "true") return refuse("cross-origin ceremonies are not accepted");
  return {};
}

struct AuthenticatorData {
  std::string_view rp_id_hash;
  unsigned char flags = 0;
  std::uint32_t sign_count = 0;
  std::string credential_id;
  std::string public_key;  // COSE_Key CBOR
};

Result<AuthenticatorData> parse_authenticator_data(std::string_view data, bool want_credential) {
  if (data.size() < 37) return refuse("authenticatorData is too short");
  AuthenticatorData out;
  out.rp_id_hash = data.substr(0, 32);
  out.flags = static_cast<unsigned char>(data[32]);
  for (std::size_t i = 33; i < 37; ++i) out.sign_count = (out.sign_count << 8) | static_cast<unsigned char>(data[i]);
  std::string_view rest = data.substr(37);
  if (out.flags & kAttestedData) {
    if (rest.size() < 18) return refuse("attested credential data is too short");
    const std::size_t length = (static_cast<unsigned char>(rest[16]) << 8) | static_cast<unsigned char>(rest[17]);
    rest.remove_prefix(18);
    if (length == 0 || length > 1023 || rest.size() < length) return refuse("bad credential id length");
    out.credential_id = std::string(rest.substr(0, length));
    rest.remove_prefix(length);
    std::size_t used = 0;
    auto key = cbor::decode(rest, &used);
    if (!key || key->type != cbor::Value::Type::map) return refuse("the credential public key is not a COSE_Key");
    out.public_key = std::string(rest.substr(0, used));
    rest.remove_prefix(used);
  } else if (want_credential) {
    return refuse("no attested credential data");
  }
  if (out.flags & kExtensionData) {
    std::size_t used = 0;
    if (auto extensions = cbor::decode(rest, &used); !extensions) return refuse("malformed extensions");
    rest.remove_prefix(used);
  }
  if (!rest.empty()) return refuse("trailing bytes after authenticatorData");
  return out;
}

Result<void> check_flags(const Policy& policy, const AuthenticatorData& data) {
  const auto expected = crypto::sha256(policy.rp_id);
  if (!crypto::equal_constant_time(data.rp_id_hash, as_view(expected))) return refuse("rpIdHash is not this relying party's");
  if (!(data.flags & kUserPresent)) return refuse("the user was not present");
  if (policy.require_user_verification && !(data.flags & kUserVerified)) return refuse("the user was not verified");
  return {};
}

struct CoseKey {
  crypto::CoseAlgorithm algorithm;
  std::int64_t alg = 0;
  std::string x, y;
};

Result<CoseKey> parse_cose_key(std::string_view bytes) {
  auto key = cbor::decode(bytes);
  if (!key || key->type != cbor::Value::Type::map) return refuse("malformed COSE_Key");
  const auto* kty = key->find(kCoseKty);
  const auto* alg = key->find(kCoseAlg);
  const auto* crv = key->find(kCoseCrv);
  const auto* x = key->find(kCoseX);
  const auto* y = key->find(kCoseY);
  auto is_int = [](const cbor::Value* v, std::int64_t want) {
    return v && v->type == cbor::Value::Type::integer && v->integer == want;
  };
  auto is_32_bytes = [](const cbor::Value* v) { return v && v->type == cbor::Value::Type::bytes && v->data.size() == 32; };
  if (is_int(kty, kKtyEc2) && is_int(alg, kAlgEs256) && is_int(crv, kCrvP256) && is_32_bytes(x) && is_32_bytes(y)) {
    return CoseKey{crypto::CoseAlgorithm::es256, kAlgEs256, x->data, y->data};
  }
  if (is_int(kty, kKtyOkp) && is_int(alg, kAlgEdDsa) && is_int(crv, kCrvEd25519) && is_32_bytes(x)) {
    return CoseKey{crypto::CoseAlgorithm::eddsa, kAlgEdDsa, x->data, {}};
  }
  return refuse("unsupported credential key (ES256 P-256 and EdDSA Ed25519 only)");
}

bool signed_by(const CoseKey& key, std::string_view authenticator_data, std::string_view client_data_json,
               std::string_view signature) {
  std::string message(authenticator_data);
  message += as_view(crypto::sha256(client_data_json));
  return crypto::verify_cose_signature(key.algorithm, key.x, key.y, message, signature);
}

}  // namespace

Result<Registration> verify_registration(const Policy& policy, std::string_view challenge,
                                         std::string_view client_data_json, std::string_view attestation_object) {
  if (auto ok = check_client_data(policy, "webauthn.create", challenge, client_data_json); !ok) {
    return std::unexpected(ok.error());
  }
  auto object = cbor::decode(attestation_object);
  if (!object || object->type != cbor::Value::Type::map) return refuse("attestationObject is not a CBOR map");
  const auto* fmt = object->find("fmt");
  const auto* statement = object->find("attStmt");
  const auto* auth_data = object->find("authData");
  if (!fmt || fmt->type != cbor::Value::Type::text || !statement || statement->type != cbor::Value::Type::map ||
      !auth_data || auth_data->type != cbor::Value::Type::bytes) {
    return refuse("attestationObject lacks fmt, attStmt or authData");
  }
  auto data = parse_authenticator_data(auth_data->data, true);
  if (!data) return std::unexpected(data.error());
  if (auto ok = check_flags(policy, *data); !ok) return std::unexpected(ok.error());
  auto key = parse_cose_key(data->public_key);
  if (!key) return std::unexpected(key.error());

  if (fmt->data == "none") {
    if (!statement->entries.empty()) return refuse("attestation none with a statement");
  } else if (fmt->data == "packed") {
    // §8.2: self attestation only (no x5c): signed by the credential key itself.
    const auto* alg = statement->find("alg");
    const auto* sig = statement->find("sig");
    if (statement->find("x5c")) return refuse("packed attestation with certificates is not accepted");
    if (!alg || alg->type != cbor::Value::Type::integer || alg->integer != key->alg) {
      return refuse("packed self-attestation alg differs from the credential's");
    }
    if (!sig || sig->type != cbor::Value::Type::bytes || !signed_by(*key, auth_data->data, client_data_json, sig->data)) {
      return refuse("the packed self-attestation signature does not verify");
    }
  } else {
    return refuse("attestation format " + fmt->data + " is not accepted");
  }
  Registration out;
  out.credential = Credential{data->credential_id, data->public_key, data->sign_count};
  out.format = fmt->data;
  out.user_verified = (data->flags & kUserVerified) != 0;
  return out;
}

Result<Assertion> verify_assertion(const Policy& policy, std::string_view challenge, const Credential& credential,
                                   std::string_view client_data_json, std::string_view authenticator_data,
                                   std::string_view signature) {
  if (auto ok = check_client_data(policy, "webauthn.get", challenge, client_data_json); !ok) {
    return std::unexpected(ok.error());
  }
  auto data = parse_authenticator_data(authenticator_data, false);
  if (!data) return std::unexpected(data.error());
  if (auto ok = check_flags(policy, *data); !ok) return std::unexpected(ok.error());
  auto key = parse_cose_key(credential.public_key);
  if (!key) return std::unexpected(key.error());
  if (!signed_by(*key, authenticator_data, client_data_json, signature)) return refuse("the signature does not verify");
  // §7.2 step 21: a count that does not grow may mean a cloned authenticator.
  if ((data->sign_count != 0 || credential.sign_count != 0) && data->sign_count <= credential.sign_count) {
    return refuse("the signature counter did not increase (cloned authenticator?)");
  }
  return Assertion{data->sign_count, (data->flags & kUserVerified) != 0};
}

}  // namespace authd::webauthn
