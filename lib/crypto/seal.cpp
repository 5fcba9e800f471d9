// AES-256-GCM sealing of values kept in the store (authd/seal.hpp).
#include "authd/seal.hpp"

#include <openssl/evp.h>

#include <memory>

namespace authd::crypto {
namespace {

constexpr std::size_t kNonceBytes = 12;
constexpr std::size_t kTagBytes = 16;
constexpr char kVersion = 1;

using Context = std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)>;

unsigned char* bytes(std::string& s, std::size_t at = 0) { return reinterpret_cast<unsigned char*>(s.data() + at); }
const unsigned char* bytes(std::string_view s, std::size_t at = 0) {
  return reinterpret_cast<const unsigned char*>(s.data() + at);
}

}  // namespace

SealKey SealKey::derive(std::span<const unsigned char> secret, std::string_view purpose) {
  return SealKey(hmac_sha256(secret, "authd seal v1\n" + std::string(purpose)));
}

Result<std::string> SealKey::seal(std::string_view plaintext, std::string_view context) const {
  // version || nonce || ciphertext || tag
  std::string out(1 + kNonceBytes + plaintext.size() + kTagBytes, '\0');
  out[0] = kVersion;
  if (auto ok = random_bytes({bytes(out, 1), kNonceBytes}); !ok) return std::unexpected(ok.error());
  Context ctx(EVP_CIPHER_CTX_new(), EVP_CIPHER_CTX_free);
  int length = 0;
  if (!ctx || EVP_EncryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, key_.data(), bytes(out, 1)) != 1 ||
      EVP_EncryptUpdate(ctx.get(), nullptr, &length, bytes(context), static_cast<int>(context.size())) != 1 ||
      EVP_EncryptUpdate(ctx.get(), bytes(out, 1 + kNonceBytes), &length, bytes(plaintext),
                        static_cast<int>(plaintext.size())) != 1 ||
      EVP_EncryptFinal_ex(ctx.get(), bytes(out, 1 + kNonceBytes + plaintext.size()), &length) != 1 ||
      EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG, static_cast<int>(kTagBytes),
                          bytes(out, 1 + kNonceBytes + plaintext.size())) != 1) {
    return fail(Errc::internal, "cannot seal a value");
  }
  return out;
}

std::optional<std::string> SealKey::open(std::string_view sealed, std::string_view context) const {
  if (sealed.size() < 1 + kNonceBytes + kTagBytes || sealed[0] != kVersion) return std::nullopt;
  const std::size_t size = sealed.size() - 1 - kNonceBytes - kTagBytes;
  std::string out(size, '\0');
  std::string tag(sealed.substr(1 + kNonceBytes + size));
  Context ctx(EVP_CIPHER_CTX_new(), EVP_CIPHER_CTX_free);
  int length = 0;
  if (!ctx || EVP_DecryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, key_.data(), bytes(sealed, 1)) != 1 ||
      EVP_DecryptUpdate(ctx.get(), nullptr, &length, bytes(context), static_cast<int>(context.size())) != 1 ||
      EVP_DecryptUpdate(ctx.get(), bytes(out), &length, bytes(sealed, 1 + kNonceBytes), static_cast<int>(size)) != 1 ||
      EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_TAG, static_cast<int>(kTagBytes), bytes(tag)) != 1 ||
      EVP_DecryptFinal_ex(ctx.get(), bytes(out, size), &length) != 1) {
    wipe(out.data(), out.size());
    return std::nullopt;
  }
  return out;
}

SealKey::~SealKey() { wipe(key_.data(), key_.size()); }

}  // namespace authd::crypto
