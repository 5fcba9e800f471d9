#include "authd/authorization.hpp"

#include <gtest/gtest.h>

#include <string>

#include "test_support.hpp"


namespace authd {
namespace {

// Standard (padded) base64 for Basic credentials.
std::string b64(std::string_view data) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::size_t i = 0;
  auto byte = [&](std::size_t k) { return static_cast<unsigned>(static_cast<unsigned char>(data[k])); };
  for (; i + 3 <= data.size(); i += 3) {
    unsigned v = (byte(i) << 16) | (byte(i + 1) << 8) | byte(i + 2);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  if (data.size() - i == 1) {
    unsigned v = byte(i) << 16;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += "==";
  } else if (data.size() - i == 2) {
    unsigned v = (byte(i) << 16) | (byte(i + 1) << 8);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += '=';
  }
  return out;
}

TEST(BasicAuthorization, HelperProducesStandardBase64) {
  EXPECT_EQ(b64("alice:secret"), "YWxpY2U6c2VjcmV0");
  EXPECT_EQ(b64("f"), "Zg==");
  EXPECT_EQ(b64("fo"), "Zm8=");
  EXPECT_EQ(b64("\xfb\xff"), "+/8=");
}

// "USERNAME|PASSWORD" that `header` parses to, or "refused".
std::string credentials(const std::string& header) {
  auto creds = parse_basic_authorization(header);
  return creds ? creds->username + "|" + creds->password : "refused";
}

TEST(BasicAuthorization, ParsesUsernameAndPassword) {
  EXPECT_EQ(credentials("Basic " + b64("alice:secret")), "alice|secret");
}

TEST(BasicAuthorization, PasswordMayContainColons) {
  EXPECT_EQ(credentials("Basic " + b64("alice:pa:ss:word:")), "alice|pa:ss:word:");
}

TEST(BasicAuthorization, EmptyPasswordParses) {
  EXPECT_EQ(credentials("Basic " + b64("alice:")), "alice|");
}

TEST(BasicAuthorization, Utf8IsKept) {
  EXPECT_EQ(credentials("Basic " + b64("j\xC3\xBCrgen:p\xC3\xA4ss")), "j\xC3\xBCrgen|p\xC3\xA4ss");
}

TEST(BasicAuthorization, SchemeIsCaseInsensitive) {
  for (std::string_view scheme : {"basic", "BASIC", "bAsIc", "Basic"}) {
    EXPECT_EQ(credentials(std::string(scheme) + " " + b64("bob:pw")), "bob|pw") << scheme;
  }
}

TEST(BasicAuthorization, RejectsBadBase64) {
  EXPECT_FALSE(parse_basic_authorization("Basic !!!!").has_value());
  EXPECT_FALSE(parse_basic_authorization("Basic YWxpY2U6c2VjcmV0=").has_value());
  EXPECT_FALSE(parse_basic_authorization("Basic YWxpY2U6c2VjcmV").has_value());
  // Unpadded ("alice:pw" is 8 bytes, needs "==" padding).
  std::string padded = b64("alice:pw");
  ASSERT_EQ(padded.back(), '=');
  std::string unpadded = padded.substr(0, padded.find('='));
  EXPECT_FALSE(parse_basic_authorization("Basic " + unpadded).has_value());
  // The standard alphabet works; the URL alphabet is not base64.
  auto std_alpha = parse_basic_authorization("Basic YTo/Pz4=");  // "a:" then two question marks and ">"
  ASSERT_TRUE(std_alpha.has_value());
  EXPECT_EQ(std_alpha->password, "?" "?>");
  EXPECT_FALSE(parse_basic_authorization("Basic YTo_Pz4=").has_value());
  auto plus = parse_basic_authorization("Basic YWI6Pj4+");  // "ab:>>>"
  ASSERT_TRUE(plus.has_value());
  EXPECT_EQ(plus->password, ">>>");
  EXPECT_FALSE(parse_basic_authorization("Basic YWI6Pj4-").has_value());
}

TEST(BasicAuthorization, RejectsMissingColon) {
  EXPECT_FALSE(parse_basic_authorization("Basic " + b64("alicesecret")).has_value());
}

TEST(BasicAuthorization, RejectsEmptyUsername) {
  EXPECT_FALSE(parse_basic_authorization("Basic " + b64(":secret")).has_value());
  EXPECT_FALSE(parse_basic_authorization("Basic " + b64(":")).has_value());
}

TEST(BasicAuthorization, RejectsControlCharacters) {
  EXPECT_FALSE(parse_basic_authorization("Basic " + b64("ali\nce:pw")).has_value());
  EXPECT_FALSE(parse_basic_authorization("Basic " + b64(std::string("alice:p\0w", 9))).has_value());
  EXPECT_FALSE(parse_basic_authorization("Basic " + b64("alice:p\x7fw")).has_value());
}

TEST(BasicAuthorization, RejectsOtherSchemesAndShapes) {
  const std::string token = b64("alice:secret");
  for (const std::string& header :
       {std::string(), std::string("Basic"), std::string("Basic "), "Bearer " + token,
        "Digest " + token, "Basics " + token, "Basic" + token, token,
        "Basic " + token + " extra", "Basic " + token + ", realm=x", "Basic  " + token + "x"}) {
    EXPECT_FALSE(parse_basic_authorization(header).has_value()) << '"' << header << '"';
  }
}

TEST(BearerAuthorization, ParsesAToken) {
  auto token = parse_bearer_authorization("Bearer abc.DEF-_~+/123==");
  ASSERT_TRUE(token.has_value()) << token.error().message;
  EXPECT_EQ(*token, "abc.DEF-_~+/123==");
}

TEST(BearerAuthorization, ReturnsAViewIntoTheHeader) {
  const std::string header = "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.sig";
  auto token = parse_bearer_authorization(header);
  ASSERT_TRUE(token.has_value());
  EXPECT_EQ(token->data(), header.data() + 7);
  EXPECT_EQ(token->size(), header.size() - 7);
}

TEST(BearerAuthorization, SchemeIsCaseInsensitive) {
  for (std::string_view scheme : {"bearer", "BEARER", "bEaReR"}) {
    const std::string header = std::string(scheme) + " tok";  // the result views into it
    auto token = parse_bearer_authorization(header);
    ASSERT_TRUE(token.has_value()) << scheme;
    EXPECT_EQ(*token, "tok");
  }
}

TEST(BearerAuthorization, EmptyOrOtherSchemeIsMissingToken) {
  for (std::string_view header : {"", "Basic eHl6", "Basic xyz", "Digest abc", "Token abc"}) {
    auto token = parse_bearer_authorization(header);
    ASSERT_FALSE(token.has_value()) << '"' << header << '"';
    EXPECT_EQ(token.error().code, Errc::no_credentials) << '"' << header << '"';
  }
}

TEST(BearerAuthorization, MalformedBearerIsInvalidRequest) {
  for (std::string_view header :
       {"Bearer", "Bearer ", "Bearer a b", "Bearer  ", "Bearer abc def ghi", "Bearer a\tb",
        "Bearer abc!", "Bearer ab\"c", "Bearer a,b", "Bearer =abc", "Bearer a=b", "Bearer \xC3\xA9",
        "Bearer a;b"}) {
    auto token = parse_bearer_authorization(header);
    ASSERT_FALSE(token.has_value()) << '"' << header << '"';
    EXPECT_EQ(token.error().code, Errc::malformed_credentials) << '"' << header << '"';
  }
}

// Tokens are checked 16 bytes at a time: every byte value, at every place
// of a block and of the tail, is judged as RFC 6750's b64token says.
TEST(BearerAuthorization, EveryByteAnywhereInALongTokenIsJudgedByB64Token) {
  const std::string_view allowed = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~+/";
  const std::string valid = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~+/";  // 68 bytes
  ASSERT_TRUE(parse_bearer_authorization("Bearer " + valid).has_value());
  for (int value = 0; value < 256; ++value) {
    const char c = static_cast<char>(value);
    const bool in_set = allowed.find(c) != std::string_view::npos;
    for (const std::size_t at : {1uz, 7uz, 15uz, 16uz, 31uz, 33uz, 50uz, 66uz}) {
      std::string token = valid;
      token[at] = c;
      const auto parsed = parse_bearer_authorization("Bearer " + token);
      EXPECT_EQ(parsed.has_value(), in_set) << "byte " << value << " at " << at;
    }
  }
  EXPECT_TRUE(parse_bearer_authorization("Bearer " + valid + "==").has_value()) << "'=' at the end";
  EXPECT_FALSE(parse_bearer_authorization("Bearer " + valid.substr(0, 20) + "=" + valid.substr(20)).has_value());
}

}  // namespace
}  // namespace authd
