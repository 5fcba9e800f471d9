// Cryptographic primitives. Only lib/crypto/ includes OpenSSL headers.
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "authd/error.hpp"

namespace authd::crypto {

using Sha256Digest = std::array<unsigned char, 32>;

// Fills `out` from the OpenSSL CSPRNG. Error: internal if the RNG fails.
Result<void> random_bytes(std::span<unsigned char> out);
// `count` random bytes, as 2*count lower-case hex characters. Aborts the
// process if the CSPRNG fails (there is no safe way to continue).
std::string random_hex(std::size_t count);
// `count` random bytes, base64url without padding.
std::string random_token(std::size_t count);

Sha256Digest sha256(std::string_view data);
Sha256Digest hmac_sha256(std::span<const unsigned char> key, std::string_view data);

// An HMAC-SHA256 key with its inner and outer hash states precomputed
// (RFC 2104), so that each MAC costs two short SHA-256 runs and no setup.
// mac() is safe to call from several threads at once.
class HmacSha256 {
 public:
  explicit HmacSha256(std::span<const unsigned char> key);
  ~HmacSha256();
  HmacSha256(HmacSha256&&) noexcept;
  HmacSha256& operator=(HmacSha256&&) noexcept;
  HmacSha256(const HmacSha256&) = delete;
  HmacSha256& operator=(const HmacSha256&) = delete;

  Sha256Digest mac(std::string_view data) const;

  struct State;

 private:
  std::unique_ptr<State> state_;
};

// Constant-time comparison: the time taken depends only on the lengths.
bool equal_constant_time(std::span<const unsigned char> a, std::span<const unsigned char> b) noexcept;
bool equal_constant_time(std::string_view a, std::string_view b) noexcept;

// RFC 4648 §5 base64url, no padding on output.
std::string base64url_encode(std::span<const unsigned char> data);
std::string base64url_encode(std::string_view data);
// Strict: only the base64url alphabet, no padding, no whitespace, and no
// non-zero trailing bits. nullopt on anything else.
std::optional<std::string> base64url_decode(std::string_view text);
// RFC 4648 §4 base64 with padding (as in HTTP Basic).
std::string base64_encode(std::string_view data);
// RFC 4648 §4 alphabet without padding (as in PHC strings), and its strict decoder.
std::string base64_encode_unpadded(std::span<const unsigned char> data);
std::optional<std::string> base64_decode_unpadded(std::string_view text);
// Strict RFC 4648 §4 base64 with mandatory padding (as in HTTP Basic).
std::optional<std::string> base64_decode(std::string_view text);

std::string to_hex(std::span<const unsigned char> data);
std::optional<std::string> from_hex(std::string_view hex);

// Overwrites memory in a way the compiler may not elide.
void wipe(void* data, std::size_t size) noexcept;

// A public key from a JWK, for verifying an identity provider's signatures.
class PublicKey {
 public:
  // RSA key from base64url `n` and `e` (RFC 7518 §6.3.1); at least 2048 bits.
  static Result<PublicKey> rsa(std::string_view n_b64url, std::string_view e_b64url);
  // EC P-256 key from base64url `x` and `y` (RFC 7518 §6.2.1).
  static Result<PublicKey> ec_p256(std::string_view x_b64url, std::string_view y_b64url);
  // Ed25519 key from base64url `x` (RFC 8037 §2, kty OKP, crv Ed25519).
  static Result<PublicKey> ed25519(std::string_view x_b64url);

  // The one JWS algorithm this key may be used with: "RS256", "ES256" or "EdDSA".
  std::string_view algorithm() const noexcept { return algorithm_; }

  // Verifies a JWS signature over `signing_input` (for ES256, `signature` is
  // the raw 64-byte r||s; for EdDSA the 64-byte Ed25519 signature). False on
  // any mismatch.
  bool verify(std::string_view signing_input, std::string_view signature) const;

  struct Handle;

 private:
  PublicKey(std::shared_ptr<Handle> key, std::string_view algorithm) : key_(std::move(key)), algorithm_(algorithm) {}
  std::shared_ptr<Handle> key_;
  std::string_view algorithm_;
};

// WebAuthn signatures (lib/crypto/cose_key.cpp): ES256 = ECDSA P-256 with
// SHA-256 over `data`, `signature` DER-encoded, key the raw 32-byte x and y;
// EdDSA = Ed25519, key the raw 32-byte x (y empty). False on any mismatch.
enum class CoseAlgorithm { es256, eddsa };
bool verify_cose_signature(CoseAlgorithm algorithm, std::string_view x, std::string_view y, std::string_view data,
                           std::string_view signature);

}  // namespace authd::crypto
