// The only file that talks to libargon2.
#include "authd/password.hpp"

#include <argon2.h>

#include <array>
#include <string>

#include "authd/crypto.hpp"

namespace authd {
namespace {

constexpr std::size_t kSaltBytes = 16;
constexpr std::size_t kHashBytes = 32;

}  // namespace

PasswordHasher::PasswordHasher(Argon2Params params) : params_(params) {
  // A real hash of a random password: verifying against it costs the same as
  // verifying a real user's password.
  auto hashed = hash(crypto::random_hex(16));
  dummy_hash_ = hashed ? *hashed : std::string();
}

Result<std::string> PasswordHasher::hash(std::string_view password) const {
  std::array<unsigned char, kSaltBytes> salt{};
  if (auto ok = crypto::random_bytes(salt); !ok) return std::unexpected(ok.error());
  const std::size_t encoded_length =
      argon2_encodedlen(params_.iterations, params_.memory_kib, params_.parallelism,
                        kSaltBytes, kHashBytes, Argon2_id);
  std::string encoded(encoded_length, '\0');
  const int rc = argon2id_hash_encoded(params_.iterations, params_.memory_kib, params_.parallelism,
                                       password.data(), password.size(), salt.data(), salt.size(),
                                       kHashBytes, encoded.data(), encoded.size());
  if (rc != ARGON2_OK) return fail(Errc::internal, std::string("argon2id failed: ") + argon2_error_message(rc));
  encoded.resize(encoded.find('\0'));
  return encoded;
}

bool PasswordHasher::verify(std::string_view phc, std::string_view password) const {
  // Only argon2id hashes are ours; refuse anything else outright.
  if (!phc.starts_with("$argon2id$")) return false;
  const std::string encoded(phc);  // argon2 wants a NUL-terminated string
  return argon2id_verify(encoded.c_str(), password.data(), password.size()) == ARGON2_OK;
}

bool PasswordHasher::verify_dummy(std::string_view password) const {
  (void)verify(dummy_hash_, password);
  return false;
}

}  // namespace authd
