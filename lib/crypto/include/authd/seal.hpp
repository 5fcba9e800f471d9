// Sealing (AES-256-GCM) of the few values the store must keep readable but
// that carry a usable secret (the mail outbox's links): sealed under a key
// derived from authd's HMAC signing key, which is never in the store, so a
// copy of the database or a backup alone cannot open them.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "authd/crypto.hpp"
#include "authd/error.hpp"

namespace authd::crypto {

class SealKey {
 public:
  SealKey() = default;  // the all-zero key: only for tests and a value not set yet
  explicit SealKey(const Sha256Digest& key) : key_(key) {}
  ~SealKey();
  SealKey(const SealKey&) = default;
  SealKey& operator=(const SealKey&) = default;

  // A key for `purpose` from `secret` (HMAC-SHA256, one key per purpose).
  static SealKey derive(std::span<const unsigned char> secret, std::string_view purpose);

  // version || 96-bit random nonce || ciphertext || 128-bit tag, bound to
  // `context` (e.g. the entry's key, so a sealed value cannot be moved).
  // Error: internal (the RNG or the cipher failed).
  Result<std::string> seal(std::string_view plaintext, std::string_view context) const;
  // nullopt when `sealed` was not sealed by this key for `context` (another
  // signing key, tampered, truncated).
  std::optional<std::string> open(std::string_view sealed, std::string_view context) const;

 private:
  Sha256Digest key_{};
};

}  // namespace authd::crypto
