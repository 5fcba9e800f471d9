// Signature checks for WebAuthn credential keys (COSE EC2 P-256, OKP Ed25519).
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>

#include <memory>

#include "authd/crypto.hpp"
#include "openssl_handles.hpp"

namespace authd::crypto {
namespace {

using namespace ossl;  // the owning handle types (openssl_handles.hpp)

PkeyPtr p256_key(std::string_view x, std::string_view y) {
  if (x.size() != 32 || y.size() != 32) return nullptr;
  const std::string point = "\x04" + std::string(x) + std::string(y);  // uncompressed SEC1 point
  ParamBuildPtr build(OSSL_PARAM_BLD_new());
  if (!build || !OSSL_PARAM_BLD_push_utf8_string(build.get(), OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0) ||
      !OSSL_PARAM_BLD_push_octet_string(build.get(), OSSL_PKEY_PARAM_PUB_KEY, point.data(), point.size())) {
    return nullptr;
  }
  ParamsPtr params(OSSL_PARAM_BLD_to_param(build.get()));
  PkeyCtxPtr ctx(EVP_PKEY_CTX_new_from_name(nullptr, "EC", nullptr));
  EVP_PKEY* key = nullptr;
  if (!params || !ctx || EVP_PKEY_fromdata_init(ctx.get()) <= 0 ||
      EVP_PKEY_fromdata(ctx.get(), &key, EVP_PKEY_PUBLIC_KEY, params.get()) <= 0) {
    return nullptr;
  }
  // fromdata does not check that the point is on the curve: do it here.
  PkeyPtr owned(key);
  PkeyCtxPtr check(EVP_PKEY_CTX_new_from_pkey(nullptr, key, nullptr));
  if (!check || EVP_PKEY_public_check(check.get()) != 1) return nullptr;
  return owned;
}

}  // namespace

bool verify_cose_signature(CoseAlgorithm algorithm, std::string_view x, std::string_view y, std::string_view data,
                           std::string_view signature) {
  PkeyPtr key;
  const EVP_MD* digest = nullptr;
  if (algorithm == CoseAlgorithm::es256) {
    key = p256_key(x, y);
    digest = EVP_sha256();
  } else {
    if (x.size() != 32) return false;
    key.reset(EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr, reinterpret_cast<const unsigned char*>(x.data()),
                                          x.size()));
  }
  if (!key) return false;
  MdCtxPtr ctx(EVP_MD_CTX_new());
  if (!ctx || EVP_DigestVerifyInit(ctx.get(), nullptr, digest, nullptr, key.get()) != 1) return false;
  return EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(signature.data()), signature.size(),
                          reinterpret_cast<const unsigned char*>(data.data()), data.size()) == 1;
}

}  // namespace authd::crypto
