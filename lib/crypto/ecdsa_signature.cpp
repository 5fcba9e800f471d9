#include "ecdsa_signature.hpp"

#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/ecdsa.h>

#include "openssl_handles.hpp"

namespace authd::crypto {
namespace {

using namespace ossl;  // the owning handle types (openssl_handles.hpp)

constexpr int kHalf = 32;  // bytes of r and of s on P-256

std::string padded_bytes(const BIGNUM* bn) {
  std::string out(kHalf, '\0');
  if (BN_bn2binpad(bn, reinterpret_cast<unsigned char*>(out.data()), kHalf) != kHalf) return {};
  return out;
}

}  // namespace

std::string ecdsa_der_to_raw(std::string_view der) {
  const auto* in = reinterpret_cast<const unsigned char*>(der.data());
  EcdsaSigPtr sig(d2i_ECDSA_SIG(nullptr, &in, static_cast<long>(der.size())));
  if (!sig) return {};
  const std::string r = padded_bytes(ECDSA_SIG_get0_r(sig.get()));
  const std::string s = padded_bytes(ECDSA_SIG_get0_s(sig.get()));
  return r.empty() || s.empty() ? std::string() : r + s;
}

std::string ecdsa_raw_to_der(std::string_view raw) {
  if (raw.size() != 2 * kHalf) return {};
  const auto* bytes = reinterpret_cast<const unsigned char*>(raw.data());
  EcdsaSigPtr sig(ECDSA_SIG_new());
  BIGNUM* r = BN_bin2bn(bytes, kHalf, nullptr);
  BIGNUM* s = BN_bin2bn(bytes + kHalf, kHalf, nullptr);
  if (!sig || !r || !s || ECDSA_SIG_set0(sig.get(), r, s) != 1) {  // set0 owns r and s on success
    BN_free(r);
    BN_free(s);
    return {};
  }
  unsigned char* out = nullptr;
  const int length = i2d_ECDSA_SIG(sig.get(), &out);
  if (length <= 0) return {};
  std::string der(reinterpret_cast<char*>(out), static_cast<std::size_t>(length));
  OPENSSL_free(out);
  return der;
}

}  // namespace authd::crypto
