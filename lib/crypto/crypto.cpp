// The only place (with signing_key.cpp) that includes OpenSSL.
#include "authd/crypto.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <climits>
#include <cstdio>
#include <cstdlib>

namespace authd::crypto {
namespace {

constexpr std::string_view kStd = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr std::string_view kUrl = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

int sextet(std::string_view alphabet, char c) {
  const auto pos = alphabet.find(c);
  return pos == std::string_view::npos ? -1 : static_cast<int>(pos);
}

// Decodes unpadded base64 in `alphabet`; refuses non-canonical input (a
// length of 1 mod 4, or set bits past the last whole byte) so that every
// byte string has exactly one accepted encoding.
std::optional<std::string> decode_unpadded(std::string_view text, std::string_view alphabet) {
  if (text.size() % 4 == 1) return std::nullopt;
  std::string out;
  out.reserve(text.size() * 3 / 4);
  std::uint32_t buffer = 0;
  int bits = 0;
  for (char c : text) {
    const int value = sextet(alphabet, c);
    if (value < 0) return std::nullopt;
    buffer = (buffer << 6) | static_cast<std::uint32_t>(value);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((buffer >> bits) & 0xFFu));
    }
  }
  if (bits > 0 && (buffer & ((1u << bits) - 1u)) != 0) return std::nullopt;
  return out;
}

std::string encode_unpadded(std::span<const unsigned char> data, std::string_view alphabet) {
  std::string out;
  out.reserve((data.size() + 2) / 3 * 4);
  std::uint32_t buffer = 0;
  int bits = 0;
  for (unsigned char byte : data) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out.push_back(alphabet[(buffer >> bits) & 0x3Fu]);
    }
  }
  if (bits > 0) out.push_back(alphabet[(buffer << (6 - bits)) & 0x3Fu]);
  return out;
}

std::span<const unsigned char> bytes_of(std::string_view text) {
  return {reinterpret_cast<const unsigned char*>(text.data()), text.size()};
}

}  // namespace

Result<void> random_bytes(std::span<unsigned char> out) {
  if (out.size() > static_cast<std::size_t>(INT_MAX) ||
      RAND_bytes(out.data(), static_cast<int>(out.size())) != 1) {
    return fail(Errc::internal, "the random number generator failed");
  }
  return {};
}

std::string random_hex(std::size_t count) {
  std::string raw(count, '\0');
  if (!random_bytes({reinterpret_cast<unsigned char*>(raw.data()), raw.size()})) {
    std::fputs("authd: fatal: the random number generator failed\n", stderr);
    std::abort();
  }
  return to_hex(bytes_of(raw));
}

std::string random_token(std::size_t count) {
  std::string raw(count, '\0');
  if (!random_bytes({reinterpret_cast<unsigned char*>(raw.data()), raw.size()})) {
    std::fputs("authd: fatal: the random number generator failed\n", stderr);
    std::abort();
  }
  return base64url_encode(raw);
}

Sha256Digest sha256(std::string_view data) {
  Sha256Digest digest{};
  unsigned int length = 0;
  EVP_Digest(data.data(), data.size(), digest.data(), &length, EVP_sha256(), nullptr);
  return digest;
}

Sha256Digest hmac_sha256(std::span<const unsigned char> key, std::string_view data) {
  Sha256Digest mac{};
  unsigned int length = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), mac.data(), &length);
  return mac;
}

bool equal_constant_time(std::span<const unsigned char> a, std::span<const unsigned char> b) noexcept {
  if (a.size() != b.size()) return false;
  return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

bool equal_constant_time(std::string_view a, std::string_view b) noexcept {
  return equal_constant_time(bytes_of(a), bytes_of(b));
}

std::string base64url_encode(std::span<const unsigned char> data) { return encode_unpadded(data, kUrl); }
std::string base64url_encode(std::string_view data) { return encode_unpadded(bytes_of(data), kUrl); }

std::optional<std::string> base64url_decode(std::string_view text) { return decode_unpadded(text, kUrl); }

std::string base64_encode(std::string_view data) {
  std::string out = encode_unpadded(bytes_of(data), kStd);
  while (out.size() % 4 != 0) out.push_back('=');
  return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  std::size_t padding = 0;
  while (padding < 2 && padding < text.size() && text[text.size() - 1 - padding] == '=') ++padding;
  return decode_unpadded(text.substr(0, text.size() - padding), kStd);
}

std::string to_hex(std::span<const unsigned char> data) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(data.size() * 2);
  for (unsigned char byte : data) {
    out.push_back(kDigits[byte >> 4]);
    out.push_back(kDigits[byte & 0x0F]);
  }
  return out;
}

std::optional<std::string> from_hex(std::string_view hex) {
  if (hex.size() % 2 != 0) return std::nullopt;
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  out.reserve(hex.size() / 2);
  for (std::size_t i = 0; i < hex.size(); i += 2) {
    const int high = nibble(hex[i]), low = nibble(hex[i + 1]);
    if (high < 0 || low < 0) return std::nullopt;
    out.push_back(static_cast<char>((high << 4) | low));
  }
  return out;
}

void wipe(void* data, std::size_t size) noexcept { OPENSSL_cleanse(data, size); }

}  // namespace authd::crypto
