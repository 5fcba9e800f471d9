#include "authd/totp.hpp"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <array>

namespace authd::totp {
namespace {

constexpr std::string_view kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

const EVP_MD* digest_of(Hash hash) {
  switch (hash) {
    case Hash::sha256: return EVP_sha256();
    case Hash::sha512: return EVP_sha512();
    case Hash::sha1: break;
  }
  return EVP_sha1();
}

}  // namespace

std::string hotp(std::string_view key, std::uint64_t counter, int digits, Hash hash) {
  std::array<unsigned char, 8> message{};
  for (int i = 7; i >= 0; --i) {
    message[static_cast<std::size_t>(i)] = static_cast<unsigned char>(counter & 0xff);
    counter >>= 8;
  }
  std::array<unsigned char, EVP_MAX_MD_SIZE> mac{};
  unsigned int length = 0;
  if (!HMAC(digest_of(hash), key.data(), static_cast<int>(key.size()), message.data(), message.size(), mac.data(),
            &length) ||
      length < 20) {
    return {};  // cannot happen with the digests above; an empty code never matches
  }
  const unsigned offset = mac[length - 1] & 0x0f;
  const std::uint32_t binary = (static_cast<std::uint32_t>(mac[offset] & 0x7f) << 24) |
                               (static_cast<std::uint32_t>(mac[offset + 1]) << 16) |
                               (static_cast<std::uint32_t>(mac[offset + 2]) << 8) | mac[offset + 3];
  std::uint32_t modulus = 1;
  for (int i = 0; i < digits; ++i) modulus *= 10;
  std::string code = std::to_string(binary % modulus);
  if (code.size() < static_cast<std::size_t>(digits)) code.insert(0, static_cast<std::size_t>(digits) - code.size(), '0');
  return code;
}

std::string base32_encode(std::string_view data) {
  std::string out;
  std::uint32_t buffer = 0;
  int bits = 0;
  for (unsigned char c : data) {
    buffer = (buffer << 8) | c;
    bits += 8;
    while (bits >= 5) {
      out += kAlphabet[(buffer >> (bits - 5)) & 0x1f];
      bits -= 5;
    }
  }
  if (bits > 0) out += kAlphabet[(buffer << (5 - bits)) & 0x1f];
  return out;
}

std::optional<std::string> base32_decode(std::string_view text) {
  while (!text.empty() && text.back() == '=') text.remove_suffix(1);
  std::string out;
  std::uint32_t buffer = 0;
  int bits = 0;
  for (char raw : text) {
    char c = raw >= 'a' && raw <= 'z' ? static_cast<char>(raw - 'a' + 'A') : raw;
    const auto value = kAlphabet.find(c);
    if (value == std::string_view::npos) return std::nullopt;
    buffer = (buffer << 5) | static_cast<std::uint32_t>(value);
    bits += 5;
    if (bits >= 8) {
      out += static_cast<char>((buffer >> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return out;
}

}  // namespace authd::totp
