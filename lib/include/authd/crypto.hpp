// Cryptographic primitives. Only lib/crypto/ includes OpenSSL headers.
#pragma once

#include <array>
#include <cstddef>
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

// Constant-time comparison: the time taken depends only on the lengths.
bool equal_constant_time(std::span<const unsigned char> a, std::span<const unsigned char> b) noexcept;
bool equal_constant_time(std::string_view a, std::string_view b) noexcept;

// RFC 4648 §5 base64url, no padding on output.
std::string base64url_encode(std::span<const unsigned char> data);
std::string base64url_encode(std::string_view data);
// Strict: only the base64url alphabet, no padding, no whitespace, and no
// non-zero trailing bits. nullopt on anything else.
std::optional<std::string> base64url_decode(std::string_view text);
// Strict RFC 4648 §4 base64 with mandatory padding (as in HTTP Basic).
std::optional<std::string> base64_decode(std::string_view text);

std::string to_hex(std::span<const unsigned char> data);
std::optional<std::string> from_hex(std::string_view hex);

// Overwrites memory in a way the compiler may not elide.
void wipe(void* data, std::size_t size) noexcept;

}  // namespace authd::crypto
