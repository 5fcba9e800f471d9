// A private signing key for public-key tokens: Ed25519 (JWS "EdDSA"),
// P-256 (JWS "ES256") or RSA of at least 2048 bits (JWS "RS256", RSASSA-
// PKCS1-v1_5 with SHA-256: what OpenID Connect requires of a provider's ID
// tokens). Only lib/crypto/ touches OpenSSL; the key's secret
// half leaves the object only as PEM for its 0600 file (lib/token/key_ring).
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "authd/error.hpp"

namespace authd::crypto {

enum class KeyAlgorithm { ed25519, es256, rs256 };

// "EdDSA" / "ES256" / "RS256": the JWS alg each key is pinned to.
std::string_view jws_algorithm(KeyAlgorithm algorithm) noexcept;

class KeyPair {
 public:
  // A fresh random key. Error: internal.
  static Result<KeyPair> generate(KeyAlgorithm algorithm);
  // From PKCS#8 PEM. Error: invalid_input (unreadable, or another kind of key).
  static Result<KeyPair> from_pem(std::string_view pem);

  KeyAlgorithm algorithm() const noexcept { return algorithm_; }
  // PKCS#8 PEM of the private key (for its file only).
  std::string private_pem() const;
  // The JWS signature over `signing_input`: 64 bytes for EdDSA and ES256
  // (ES256 as raw r||s, RFC 7518 §3.4), the modulus size for RS256. Empty on
  // an OpenSSL failure.
  std::string sign(std::string_view signing_input) const;
  // Verifies a JWS signature made with this key's algorithm.
  bool verify(std::string_view signing_input, std::string_view signature) const;
  // The public JWK members, base64url: kty, crv, x (and y for P-256); or
  // kty "RSA", n and e.
  struct PublicJwk {
    std::string kty{}, crv{}, x{}, y{}, n{}, e{};
  };
  PublicJwk public_jwk() const;

  struct Handle;

 private:
  KeyPair(std::shared_ptr<Handle> key, KeyAlgorithm algorithm) : key_(std::move(key)), algorithm_(algorithm) {}
  std::shared_ptr<Handle> key_;
  KeyAlgorithm algorithm_;
};

}  // namespace authd::crypto
