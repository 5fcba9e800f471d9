// Ed25519, P-256 and RSA signing keys for tokens. OpenSSL 3 API.
#include "authd/key_pair.hpp"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include "authd/crypto.hpp"
#include "ecdsa_signature.hpp"
#include "openssl_handles.hpp"

namespace authd::crypto {

struct KeyPair::Handle {
  EVP_PKEY* pkey = nullptr;
  ~Handle() { EVP_PKEY_free(pkey); }
};

namespace {

using namespace ossl;  // the owning handle types (openssl_handles.hpp)

constexpr std::size_t kRsaBits = 2048;  // what authd generates; at least this much is accepted

const EVP_MD* digest_for(KeyAlgorithm algorithm) { return algorithm == KeyAlgorithm::ed25519 ? nullptr : EVP_sha256(); }

std::string bignum_bytes(const BIGNUM* bn);

std::string bignum_bytes(const BIGNUM* bn, int width) {
  std::string out(static_cast<std::size_t>(width), '\0');
  if (BN_bn2binpad(bn, reinterpret_cast<unsigned char*>(out.data()), width) != width) return {};
  return out;
}

std::string bignum_bytes(const BIGNUM* bn) { return bignum_bytes(bn, BN_num_bytes(bn)); }

}  // namespace

std::string_view jws_algorithm(KeyAlgorithm algorithm) noexcept {
  switch (algorithm) {
    case KeyAlgorithm::ed25519: return "EdDSA";
    case KeyAlgorithm::es256: return "ES256";
    case KeyAlgorithm::rs256: return "RS256";
  }
  return "";
}

Result<KeyPair> KeyPair::generate(KeyAlgorithm algorithm) {
  auto handle = std::make_shared<Handle>();
  switch (algorithm) {
    case KeyAlgorithm::ed25519: handle->pkey = EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519"); break;
    case KeyAlgorithm::es256: handle->pkey = EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"); break;
    case KeyAlgorithm::rs256: handle->pkey = EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", kRsaBits); break;
  }
  if (!handle->pkey) return fail(Errc::internal, "key generation failed");
  return KeyPair(std::move(handle), algorithm);
}

Result<KeyPair> KeyPair::from_pem(std::string_view pem) {
  BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  auto handle = std::make_shared<Handle>();
  if (bio) handle->pkey = PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr);
  if (!handle->pkey) return fail(Errc::invalid_input, "not a PEM private key");
  if (EVP_PKEY_is_a(handle->pkey, "ED25519")) return KeyPair(std::move(handle), KeyAlgorithm::ed25519);
  char group[32] = {};
  std::size_t length = 0;
  if (EVP_PKEY_is_a(handle->pkey, "EC") &&
      EVP_PKEY_get_utf8_string_param(handle->pkey, OSSL_PKEY_PARAM_GROUP_NAME, group, sizeof group, &length) == 1 &&
      std::string_view(group, length) == "prime256v1") {
    return KeyPair(std::move(handle), KeyAlgorithm::es256);
  }
  if (EVP_PKEY_is_a(handle->pkey, "RSA") && EVP_PKEY_get_bits(handle->pkey) >= static_cast<int>(kRsaBits)) {
    return KeyPair(std::move(handle), KeyAlgorithm::rs256);
  }
  return fail(Errc::invalid_input, "only Ed25519, P-256 and RSA (2048 bits or more) keys are supported");
}

std::string KeyPair::private_pem() const {
  BioPtr bio(BIO_new(BIO_s_secmem()));
  if (!bio || PEM_write_bio_PrivateKey(bio.get(), key_->pkey, nullptr, nullptr, 0, nullptr, nullptr) != 1) return {};
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio.get(), &data);
  return size > 0 ? std::string(data, static_cast<std::size_t>(size)) : std::string();
}

std::string KeyPair::sign(std::string_view signing_input) const {
  MdCtxPtr ctx(EVP_MD_CTX_new());
  if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, digest_for(algorithm_), nullptr, key_->pkey) != 1) return {};
  std::size_t size = 0;
  const auto* input = reinterpret_cast<const unsigned char*>(signing_input.data());
  if (EVP_DigestSign(ctx.get(), nullptr, &size, input, signing_input.size()) != 1) return {};
  std::string signature(size, '\0');
  if (EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(signature.data()), &size, input,
                     signing_input.size()) != 1) {
    return {};
  }
  signature.resize(size);
  if (algorithm_ != KeyAlgorithm::es256) return signature;
  return ecdsa_der_to_raw(signature);  // JWS carries r||s
}

bool KeyPair::verify(std::string_view signing_input, std::string_view signature) const {
  if (algorithm_ == KeyAlgorithm::rs256) {
    if (signature.size() != static_cast<std::size_t>(EVP_PKEY_get_size(key_->pkey))) return false;
  } else if (signature.size() != 64) {
    return false;
  }
  std::string der;
  if (algorithm_ == KeyAlgorithm::es256) {
    der = ecdsa_raw_to_der(signature);
    if (der.empty()) return false;
    signature = der;
  }
  MdCtxPtr ctx(EVP_MD_CTX_new());
  if (!ctx || EVP_DigestVerifyInit(ctx.get(), nullptr, digest_for(algorithm_), nullptr, key_->pkey) != 1) return false;
  return EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(signature.data()), signature.size(),
                          reinterpret_cast<const unsigned char*>(signing_input.data()), signing_input.size()) == 1;
}

KeyPair::PublicJwk KeyPair::public_jwk() const {
  PublicJwk jwk;
  if (algorithm_ == KeyAlgorithm::ed25519) {
    unsigned char raw[32];
    std::size_t size = sizeof raw;
    if (EVP_PKEY_get_raw_public_key(key_->pkey, raw, &size) == 1) {
      jwk = {"OKP", "Ed25519", base64url_encode(std::span<const unsigned char>(raw, size)), ""};
    }
    return jwk;
  }
  if (algorithm_ == KeyAlgorithm::rs256) {
    BIGNUM* n = nullptr;
    BIGNUM* e = nullptr;
    EVP_PKEY_get_bn_param(key_->pkey, OSSL_PKEY_PARAM_RSA_N, &n);
    EVP_PKEY_get_bn_param(key_->pkey, OSSL_PKEY_PARAM_RSA_E, &e);
    BignumPtr owned_n(n), owned_e(e);
    if (n && e) {
      jwk.kty = "RSA";
      jwk.n = base64url_encode(bignum_bytes(n));
      jwk.e = base64url_encode(bignum_bytes(e));
    }
    return jwk;
  }
  BIGNUM* x = nullptr;
  BIGNUM* y = nullptr;
  EVP_PKEY_get_bn_param(key_->pkey, OSSL_PKEY_PARAM_EC_PUB_X, &x);
  EVP_PKEY_get_bn_param(key_->pkey, OSSL_PKEY_PARAM_EC_PUB_Y, &y);
  BignumPtr owned_x(x), owned_y(y);
  if (x && y) jwk = {"EC", "P-256", base64url_encode(bignum_bytes(x, 32)), base64url_encode(bignum_bytes(y, 32))};
  return jwk;
}

}  // namespace authd::crypto
