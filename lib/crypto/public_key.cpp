// Public-key signature checks (RS256, ES256, EdDSA) for identity providers' ID
// tokens and OpenID clients' assertions (private_key_jwt). OpenSSL 3 API.
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>

#include "authd/crypto.hpp"
#include "ecdsa_signature.hpp"
#include "openssl_handles.hpp"

namespace authd::crypto {

struct PublicKey::Handle {
  EVP_PKEY* pkey = nullptr;
  ~Handle() { EVP_PKEY_free(pkey); }
};

namespace {

using namespace ossl;  // the owning handle types (openssl_handles.hpp)

constexpr int kMinRsaBits = 2048;

BignumPtr bignum(std::string_view bytes) {
  return BignumPtr(BN_bin2bn(reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<int>(bytes.size()), nullptr));
}

Result<std::shared_ptr<PublicKey::Handle>> from_params(const char* type, OSSL_PARAM_BLD* build) {
  ParamsPtr params(OSSL_PARAM_BLD_to_param(build));
  PkeyCtxPtr ctx(EVP_PKEY_CTX_new_from_name(nullptr, type, nullptr));
  auto handle = std::make_shared<PublicKey::Handle>();
  if (!params || !ctx || EVP_PKEY_fromdata_init(ctx.get()) <= 0 ||
      EVP_PKEY_fromdata(ctx.get(), &handle->pkey, EVP_PKEY_PUBLIC_KEY, params.get()) <= 0) {
    return fail(Errc::invalid_input, std::string("unusable ") + type + " key");
  }
  return handle;
}

}  // namespace

Result<PublicKey> PublicKey::rsa(std::string_view n_b64url, std::string_view e_b64url) {
  const auto n = base64url_decode(n_b64url), e = base64url_decode(e_b64url);
  if (!n || !e || n->empty() || e->empty()) return fail(Errc::invalid_input, "RSA key: n and e must be base64url");
  BignumPtr bn_n = bignum(*n), bn_e = bignum(*e);
  ParamBuildPtr build(OSSL_PARAM_BLD_new());
  if (!bn_n || !bn_e || !build || !OSSL_PARAM_BLD_push_BN(build.get(), OSSL_PKEY_PARAM_RSA_N, bn_n.get()) ||
      !OSSL_PARAM_BLD_push_BN(build.get(), OSSL_PKEY_PARAM_RSA_E, bn_e.get())) {
    return fail(Errc::internal, "RSA key: out of memory");
  }
  auto handle = from_params("RSA", build.get());
  if (!handle) return std::unexpected(handle.error());
  if (EVP_PKEY_get_bits((*handle)->pkey) < kMinRsaBits) return fail(Errc::invalid_input, "RSA key shorter than 2048 bits");
  return PublicKey(std::move(*handle), "RS256");
}

Result<PublicKey> PublicKey::ec_p256(std::string_view x_b64url, std::string_view y_b64url) {
  const auto x = base64url_decode(x_b64url), y = base64url_decode(y_b64url);
  if (!x || !y || x->size() != 32 || y->size() != 32) return fail(Errc::invalid_input, "EC key: x and y must be 32 bytes");
  std::string point = "\x04" + *x + *y;  // uncompressed SEC1 point
  ParamBuildPtr build(OSSL_PARAM_BLD_new());
  if (!build || !OSSL_PARAM_BLD_push_utf8_string(build.get(), OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0) ||
      !OSSL_PARAM_BLD_push_octet_string(build.get(), OSSL_PKEY_PARAM_PUB_KEY, point.data(), point.size())) {
    return fail(Errc::internal, "EC key: out of memory");
  }
  auto handle = from_params("EC", build.get());
  if (!handle) return std::unexpected(handle.error());
  return PublicKey(std::move(*handle), "ES256");
}

Result<PublicKey> PublicKey::ed25519(std::string_view x_b64url) {
  const auto x = base64url_decode(x_b64url);
  if (!x || x->size() != 32) return fail(Errc::invalid_input, "Ed25519 key: x must be 32 bytes");
  auto handle = std::make_shared<PublicKey::Handle>();
  handle->pkey = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr, reinterpret_cast<const unsigned char*>(x->data()),
                                             x->size());
  if (!handle->pkey) return fail(Errc::invalid_input, "unusable Ed25519 key");
  return PublicKey(std::move(handle), "EdDSA");
}

bool PublicKey::verify(std::string_view signing_input, std::string_view signature) const {
  std::string der;
  if (algorithm_ == "ES256") {
    // JWS carries r||s; OpenSSL wants a DER ECDSA-Sig-Value.
    der = ecdsa_raw_to_der(signature);
    if (der.empty()) return false;
    signature = der;
  }
  // Ed25519 hashes the message itself: no digest is named (RFC 8032).
  const EVP_MD* digest = algorithm_ == "EdDSA" ? nullptr : EVP_sha256();
  MdCtxPtr ctx(EVP_MD_CTX_new());
  if (!ctx || EVP_DigestVerifyInit(ctx.get(), nullptr, digest, nullptr, key_->pkey) != 1) return false;
  return EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(signature.data()), signature.size(),
                          reinterpret_cast<const unsigned char*>(signing_input.data()), signing_input.size()) == 1;
}

}  // namespace authd::crypto
