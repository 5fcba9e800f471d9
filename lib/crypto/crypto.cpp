// Hashes, HMAC, randomness, base64 and hex. lib/crypto/ is the only module
// that includes OpenSSL.
#include "authd/crypto.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>

#include "authd/text.hpp"

namespace authd::crypto {
namespace {

constexpr std::string_view kStd = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr std::string_view kUrl = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

// Reverse lookup tables, built at compile time: -1 for bytes outside the alphabet.
using DecodeTable = std::array<signed char, 256>;
constexpr DecodeTable make_table(std::string_view alphabet) {
  DecodeTable table{};
  for (auto& entry : table) entry = -1;
  for (std::size_t i = 0; i < alphabet.size(); ++i) {
    table[static_cast<unsigned char>(alphabet[i])] = static_cast<signed char>(i);
  }
  return table;
}
constexpr DecodeTable kStdTable = make_table(kStd);
constexpr DecodeTable kUrlTable = make_table(kUrl);

// Decodes unpadded base64 with `table`; refuses non-canonical input (a
// length of 1 mod 4, or set bits past the last whole byte) so that every
// byte string has exactly one accepted encoding.
std::optional<std::string> decode_unpadded(std::string_view text, const DecodeTable& table) {
  if (text.size() % 4 == 1) return std::nullopt;
  std::string out(text.size() * 3 / 4, '\0');
  std::size_t written = 0;
  std::uint32_t buffer = 0;
  int bits = 0;
  for (char c : text) {
    const int value = table[static_cast<unsigned char>(c)];
    if (value < 0) return std::nullopt;
    buffer = (buffer << 6) | static_cast<std::uint32_t>(value);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[written++] = static_cast<char>((buffer >> bits) & 0xFFu);
    }
  }
  if (bits > 0 && (buffer & ((1u << bits) - 1u)) != 0) return std::nullopt;
  out.resize(written);
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

struct HmacSha256::State {
  EVP_MD_CTX* inner = nullptr;  // SHA-256 after absorbing key ^ ipad
  EVP_MD_CTX* outer = nullptr;  // SHA-256 after absorbing key ^ opad
  ~State() {
    EVP_MD_CTX_free(inner);
    EVP_MD_CTX_free(outer);
  }
};

namespace {

constexpr std::size_t kSha256Block = 64;

// A per-thread scratch context: no allocation per MAC.
EVP_MD_CTX* scratch_context() {
  struct Holder {
    EVP_MD_CTX* ctx = EVP_MD_CTX_new();
    ~Holder() { EVP_MD_CTX_free(ctx); }
  };
  thread_local Holder holder;
  return holder.ctx;
}

}  // namespace

HmacSha256::HmacSha256(std::span<const unsigned char> key) : state_(std::make_unique<State>()) {
  std::array<unsigned char, kSha256Block> block{};
  if (key.size() > kSha256Block) {
    const auto digest = sha256({reinterpret_cast<const char*>(key.data()), key.size()});
    std::copy(digest.begin(), digest.end(), block.begin());
  } else {
    std::copy(key.begin(), key.end(), block.begin());
  }
  std::array<unsigned char, kSha256Block> pad{};
  auto prepare = [&](EVP_MD_CTX*& ctx, unsigned char fill) {
    for (std::size_t i = 0; i < kSha256Block; ++i) pad[i] = static_cast<unsigned char>(block[i] ^ fill);
    ctx = EVP_MD_CTX_new();
    if (!ctx || EVP_DigestInit_ex(ctx, EVP_sha256(), nullptr) != 1 || EVP_DigestUpdate(ctx, pad.data(), pad.size()) != 1) {
      std::fputs("authd: fatal: SHA-256 is unavailable\n", stderr);
      std::abort();
    }
  };
  prepare(state_->inner, 0x36);
  prepare(state_->outer, 0x5c);
  wipe(block.data(), block.size());
  wipe(pad.data(), pad.size());
}

HmacSha256::~HmacSha256() = default;
HmacSha256::HmacSha256(HmacSha256&&) noexcept = default;
HmacSha256& HmacSha256::operator=(HmacSha256&&) noexcept = default;

Sha256Digest HmacSha256::mac(std::string_view data) const {
  Sha256Digest inner_digest{}, result{};
  EVP_MD_CTX* ctx = scratch_context();
  EVP_MD_CTX_copy_ex(ctx, state_->inner);
  EVP_DigestUpdate(ctx, data.data(), data.size());
  EVP_DigestFinal_ex(ctx, inner_digest.data(), nullptr);
  EVP_MD_CTX_copy_ex(ctx, state_->outer);
  EVP_DigestUpdate(ctx, inner_digest.data(), inner_digest.size());
  EVP_DigestFinal_ex(ctx, result.data(), nullptr);
  return result;
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

std::optional<std::string> base64url_decode(std::string_view text) { return decode_unpadded(text, kUrlTable); }

std::string base64_encode_unpadded(std::span<const unsigned char> data) { return encode_unpadded(data, kStd); }

std::optional<std::string> base64_decode_unpadded(std::string_view text) { return decode_unpadded(text, kStdTable); }

std::string base64_encode(std::string_view data) {
  std::string out = encode_unpadded(bytes_of(data), kStd);
  while (out.size() % 4 != 0) out.push_back('=');
  return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  std::size_t padding = 0;
  while (padding < 2 && padding < text.size() && text[text.size() - 1 - padding] == '=') ++padding;
  return decode_unpadded(text.substr(0, text.size() - padding), kStdTable);
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
  std::string out;
  out.reserve(hex.size() / 2);
  for (std::size_t i = 0; i < hex.size(); i += 2) {
    const int high = text::hex_value(hex[i]), low = text::hex_value(hex[i + 1]);
    if (high < 0 || low < 0) return std::nullopt;
    out.push_back(static_cast<char>((high << 4) | low));
  }
  return out;
}

void wipe(void* data, std::size_t size) noexcept { OPENSSL_cleanse(data, size); }

}  // namespace authd::crypto
