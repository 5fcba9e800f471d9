#include "authd/crypto.hpp"

#include <gtest/gtest.h>

#include <array>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "test_support.hpp"

namespace authd::crypto {
namespace {

std::span<const unsigned char> bytes_of(std::string_view s) {
  return {reinterpret_cast<const unsigned char*>(s.data()), s.size()};
}

std::string hex_of(const Sha256Digest& digest) { return to_hex(digest); }

struct Vector {
  std::string_view plain;
  std::string_view url;     // base64url, unpadded
  std::string_view padded;  // base64, padded
};

// RFC 4648 §10.
constexpr Vector kRfc4648[] = {
    {"", "", ""},
    {"f", "Zg", "Zg=="},
    {"fo", "Zm8", "Zm8="},
    {"foo", "Zm9v", "Zm9v"},
    {"foob", "Zm9vYg", "Zm9vYg=="},
    {"fooba", "Zm9vYmE", "Zm9vYmE="},
    {"foobar", "Zm9vYmFy", "Zm9vYmFy"},
};

TEST(Crypto, Base64UrlEncodeRfc4648Vectors) {
  for (const Vector& v : kRfc4648) {
    EXPECT_EQ(base64url_encode(v.plain), v.url) << v.plain;
    EXPECT_EQ(base64url_encode(bytes_of(v.plain)), v.url) << v.plain;
  }
}

TEST(Crypto, Base64UrlDecodeRfc4648Vectors) {
  for (const Vector& v : kRfc4648) {
    auto decoded = base64url_decode(v.url);
    ASSERT_TRUE(decoded.has_value()) << v.url;
    EXPECT_EQ(*decoded, v.plain);
  }
}

TEST(Crypto, Base64UrlUsesTheUrlAlphabet) {
  const std::string data = "\xfb\xff\xbf";
  EXPECT_EQ(base64url_encode(data), "-_-_");
  EXPECT_EQ(base64url_encode(std::string_view("\xfb\xff")), "-_8");
  EXPECT_EQ(base64url_decode("-_-_"), data);
}

TEST(Crypto, Base64UrlRoundTripAllByteValues) {
  std::string all;
  for (int i = 0; i < 256; ++i) all.push_back(static_cast<char>(i));
  for (std::size_t len = 0; len <= all.size(); len += 7) {
    std::string slice = all.substr(0, len);
    std::string encoded = base64url_encode(slice);
    EXPECT_EQ(encoded.find_first_of("+/="), std::string::npos) << encoded;
    auto decoded = base64url_decode(encoded);
    ASSERT_TRUE(decoded.has_value()) << encoded;
    EXPECT_EQ(*decoded, slice);
  }
}

TEST(Crypto, Base64UrlDecodeRejectsPadding) {
  EXPECT_FALSE(base64url_decode("Zg==").has_value());
  EXPECT_FALSE(base64url_decode("Zm8=").has_value());
  EXPECT_FALSE(base64url_decode("Zg=").has_value());
  EXPECT_FALSE(base64url_decode("Zm9v=").has_value());
  EXPECT_FALSE(base64url_decode("====").has_value());
}

TEST(Crypto, Base64UrlDecodeRejectsStandardAlphabet) {
  EXPECT_FALSE(base64url_decode("+_8").has_value());
  EXPECT_FALSE(base64url_decode("-/8").has_value());
  EXPECT_FALSE(base64url_decode("+/+/").has_value());
}

TEST(Crypto, Base64UrlDecodeRejectsWhitespaceAndOtherBytes) {
  for (std::string_view bad : {"Zm9v ", " Zm9v", "Zm 9v", "Zm9v\n", "Zm9v\r\n", "Zm\t9v", "Zm9v.",
                               "Zm9v!", "Zm*v"}) {
    EXPECT_FALSE(base64url_decode(bad).has_value()) << '"' << bad << '"';
  }
  EXPECT_FALSE(base64url_decode(std::string_view("Zm9v\0", 5)).has_value());
  EXPECT_FALSE(base64url_decode("Zm9\xc3\xa9").has_value());
}

TEST(Crypto, Base64UrlDecodeRejectsImpossibleLengths) {
  EXPECT_FALSE(base64url_decode("Z").has_value());
  EXPECT_FALSE(base64url_decode("Zm9vY").has_value());
  EXPECT_FALSE(base64url_decode("Zm9vYmFyZ").has_value());
}

TEST(Crypto, Base64UrlDecodeRejectsNonZeroTrailingBits) {
  // "Zg" is "f"; "Zh" has the same first byte but non-zero leftover bits.
  EXPECT_TRUE(base64url_decode("Zg").has_value());
  EXPECT_FALSE(base64url_decode("Zh").has_value());
  EXPECT_FALSE(base64url_decode("Zv").has_value());
  // "Zm8" is "fo"; "Zm9" leaves "01" in the last two bits.
  EXPECT_TRUE(base64url_decode("Zm8").has_value());
  EXPECT_FALSE(base64url_decode("Zm9").has_value());
  EXPECT_FALSE(base64url_decode("Zm9vYh").has_value());
}

TEST(Crypto, Base64DecodeRfc4648Vectors) {
  for (const Vector& v : kRfc4648) {
    auto decoded = base64_decode(v.padded);
    ASSERT_TRUE(decoded.has_value()) << v.padded;
    EXPECT_EQ(*decoded, v.plain);
  }
  EXPECT_EQ(base64_decode("+/8="), std::string("\xfb\xff"));
  EXPECT_EQ(base64_decode("YWxpY2U6c2VjcmV0"), "alice:secret");
}

TEST(Crypto, Base64DecodeRequiresPadding) {
  EXPECT_FALSE(base64_decode("Zg").has_value());
  EXPECT_FALSE(base64_decode("Zg=").has_value());
  EXPECT_FALSE(base64_decode("Zm8").has_value());
  EXPECT_FALSE(base64_decode("Zm9vYg").has_value());
  EXPECT_FALSE(base64_decode("Zm9vYg=").has_value());
}

TEST(Crypto, Base64DecodeRejectsMalformedText) {
  for (std::string_view bad : {"-_8=", "Zm9v_w==", "Zg==Zg==", "Zg===", "=Zg=", "Z===", "Zm9v ",
                               " Zm9v", "Zm9v\n", "Zm 9v", "Zm9v!", "Zg==\n"}) {
    EXPECT_FALSE(base64_decode(bad).has_value()) << '"' << bad << '"';
  }
}

TEST(Crypto, Sha256KnownAnswers) {
  EXPECT_EQ(hex_of(sha256("abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(hex_of(sha256("")),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(Crypto, HmacSha256Rfc4231TestCase1) {
  const std::string key(20, '\x0b');
  EXPECT_EQ(hex_of(hmac_sha256(bytes_of(key), "Hi There")),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
}

TEST(Crypto, HmacSha256Rfc4231TestCase2) {
  EXPECT_EQ(hex_of(hmac_sha256(bytes_of("Jefe"), "what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST(Crypto, HmacSha256Rfc4231TestCase6LongKey) {
  const std::string key(131, '\xaa');
  EXPECT_EQ(hex_of(hmac_sha256(bytes_of(key),
                               "Test Using Larger Than Block-Size Key - Hash Key First")),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}

TEST(Crypto, EqualConstantTime) {
  EXPECT_TRUE(equal_constant_time(std::string_view("abc"), std::string_view("abc")));
  EXPECT_TRUE(equal_constant_time(std::string_view(""), std::string_view("")));
  EXPECT_FALSE(equal_constant_time(std::string_view("abc"), std::string_view("abd")));
  EXPECT_FALSE(equal_constant_time(std::string_view("abc"), std::string_view("xbc")));
  EXPECT_FALSE(equal_constant_time(std::string_view("abc"), std::string_view("abcd")));
  EXPECT_FALSE(equal_constant_time(std::string_view("abcd"), std::string_view("abc")));
  EXPECT_FALSE(equal_constant_time(std::string_view(""), std::string_view("a")));

  const std::array<unsigned char, 3> a{1, 2, 3};
  const std::array<unsigned char, 3> b{1, 2, 3};
  const std::array<unsigned char, 3> c{1, 2, 4};
  EXPECT_TRUE(equal_constant_time(std::span<const unsigned char>(a), std::span<const unsigned char>(b)));
  EXPECT_FALSE(equal_constant_time(std::span<const unsigned char>(a), std::span<const unsigned char>(c)));
}

TEST(Crypto, RandomHexLengthAlphabetAndDistinctness) {
  for (std::size_t count : {std::size_t{1}, std::size_t{5}, std::size_t{16}, std::size_t{32}}) {
    std::string h = random_hex(count);
    EXPECT_EQ(h.size(), 2 * count);
    EXPECT_EQ(h.find_first_not_of("0123456789abcdef"), std::string::npos) << h;
  }
  EXPECT_TRUE(random_hex(0).empty());
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) seen.insert(random_hex(16));
  EXPECT_EQ(seen.size(), 1000u);
}

TEST(Crypto, RandomBytesFillsTheBuffer) {
  std::array<unsigned char, 64> a{};
  std::array<unsigned char, 64> b{};
  ASSERT_TRUE(random_bytes(a).has_value());
  ASSERT_TRUE(random_bytes(b).has_value());
  EXPECT_NE(a, b);
  EXPECT_NE(a, (std::array<unsigned char, 64>{}));
}

TEST(Crypto, RandomTokenIsUnpaddedBase64Url) {
  std::string t = random_token(32);
  EXPECT_EQ(t.size(), 43u);
  EXPECT_EQ(t.find_first_of("+/="), std::string::npos) << t;
  auto decoded = base64url_decode(t);
  ASSERT_TRUE(decoded.has_value()) << t;
  EXPECT_EQ(decoded->size(), 32u);
  EXPECT_NE(random_token(32), t);
}

TEST(Crypto, HexRoundTrip) {
  const std::array<unsigned char, 5> data{0x00, 0x01, 0xab, 0xff, 0x7f};
  EXPECT_EQ(to_hex(data), "0001abff7f");
  auto back = from_hex("0001abff7f");
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(*back, std::string("\x00\x01\xab\xff\x7f", 5));
  EXPECT_EQ(to_hex(std::span<const unsigned char>{}), "");
  EXPECT_EQ(from_hex(""), std::string());

  std::string all;
  for (int i = 0; i < 256; ++i) all.push_back(static_cast<char>(i));
  auto round = from_hex(to_hex(bytes_of(all)));
  ASSERT_TRUE(round.has_value());
  EXPECT_EQ(*round, all);
}

TEST(Crypto, FromHexRejectsMalformed) {
  for (std::string_view bad : {"0", "abc", "zz", "0g", "00 ", " 00", "0x00", "-1"}) {
    EXPECT_FALSE(from_hex(bad).has_value()) << '"' << bad << '"';
  }
}

TEST(Crypto, WipeZeroesMemory) {
  std::array<unsigned char, 16> buf;
  buf.fill(0x5a);
  wipe(buf.data(), buf.size());
  EXPECT_EQ(buf, (std::array<unsigned char, 16>{}));
}

}  // namespace
}  // namespace authd::crypto
