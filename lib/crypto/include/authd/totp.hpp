// TOTP (RFC 6238) over HOTP (RFC 4226), with OpenSSL's HMAC, and the base32
// (RFC 4648 §6) that authenticator apps read secrets in.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace authd::totp {

enum class Hash { sha1, sha256, sha512 };

inline constexpr std::int64_t kStepSeconds = 30;
inline constexpr int kDigits = 6;

// The HOTP value of `counter` under `key` (raw bytes), `digits` long with
// leading zeros (RFC 4226 §5.3 dynamic truncation).
std::string hotp(std::string_view key, std::uint64_t counter, int digits = kDigits, Hash hash = Hash::sha1);

// The time step of Unix time `now` (T0 = 0).
inline std::int64_t step_of(std::int64_t now, std::int64_t step_seconds = kStepSeconds) {
  return now / step_seconds;
}

// Upper-case RFC 4648 base32 without padding (what otpauth:// URIs carry).
std::string base32_encode(std::string_view data);
// Accepts upper or lower case, optional '=' padding; nullopt on anything else.
std::optional<std::string> base32_decode(std::string_view text);

}  // namespace authd::totp
