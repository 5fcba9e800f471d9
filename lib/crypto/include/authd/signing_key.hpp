// The HMAC key that signs access tokens.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "authd/error.hpp"
#include "authd/settings.hpp"

namespace authd {

inline constexpr std::size_t kMinSigningKeyBytes = 32;

// Raw key bytes; wiped on destruction.
class SigningKey {
 public:
  explicit SigningKey(std::string bytes) : bytes_(std::move(bytes)) {}
  ~SigningKey();
  SigningKey(const SigningKey&) = default;
  SigningKey& operator=(const SigningKey&) = default;
  SigningKey(SigningKey&&) noexcept = default;
  SigningKey& operator=(SigningKey&&) noexcept = default;
  std::string_view bytes() const noexcept { return bytes_; }

 private:
  std::string bytes_;
};

// Where the key comes from: inline hex, else a file (default
// <state_dir>/signing.key, filled in by the core when empty).
struct KeySettings {
  std::filesystem::path file;
  std::string hex;  // secret: never printed
};

// signing_key_file, signing_key.
std::vector<settings::Setting> key_settings(KeySettings& settings);

// The key `settings` name: from hex, or the file (created when missing).
Result<SigningKey> load_signing_key(const KeySettings& settings);

// Reads the key file, or creates it with 32 random bytes (mode 0600, parent
// directory created 0700) when it does not exist. Creation is atomic: several
// processes starting at once all end up with the same key.
// Errors: io (unreadable, not a regular file), config (shorter than 32 bytes).
Result<SigningKey> load_or_create_signing_key(const std::filesystem::path& file);

// A key given in configuration as hex. Error: config if not hex or < 32 bytes.
Result<SigningKey> signing_key_from_hex(std::string_view hex);

}  // namespace authd
