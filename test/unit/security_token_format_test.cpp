// Stops parser-differential and smuggling tricks on the token's shape
// (RFC 7515 §7.1, RFC 8725 §3.2): only exactly three unpadded, canonical
// base64url parts whose header and payload are JSON objects without duplicate
// members are read, and an unknown `crit` extension is refused — so that what
// we verify is exactly what we read.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "security_support.hpp"
#include "test_support.hpp"

namespace authd {
namespace {

using namespace sec;

std::string verify_outcome(const std::string& token) {
  return outcome(service().verify(token, kAccessTokenType, kNow));
}

TEST(SecurityTokenFormat, ControlAForgedValidTokenVerifies) {
  EXPECT_EQ(verify_outcome(forge(kHeader, payload())), "ok");
}

TEST(SecurityTokenFormat, NotExactlyThreePartsIsRefused) {
  const std::string good = forge(kHeader, payload());
  const std::string h = b64u(kHeader), p = b64u(payload());
  const std::vector<std::string> bad{
      "", ".", "..", "...", h, h + "." + p, good + ".", good + "." + mac_of(good), "." + good,
      h + "." + p + "." + mac_of(h + "." + p) + "." + mac_of(h + "." + p),
      // four parts whose first three would verify on their own (JWE-like length)
      good + ".AAAA",
  };
  for (const auto& token : bad) EXPECT_EQ(verify_outcome(token), "invalid_token") << token;
}

TEST(SecurityTokenFormat, PaddingIsRefusedInEveryPartEvenWhenTheMacCoversIt) {
  // A header whose base64url length is not a multiple of 4, so '=' padding applies.
  std::string header(kHeader);
  while (b64u(header).size() % 4 == 0) header.insert(header.size() - 1, " ");
  std::string pay = payload();
  while (b64u(pay).size() % 4 == 0) pay.insert(pay.size() - 1, " ");
  ASSERT_EQ(verify_outcome(forge(header, pay)), "ok");  // control: unpadded, the same JSON texts verify

  auto pad = [](std::string s) { while (s.size() % 4 != 0) s += '='; return s; };
  const std::string hp = pad(b64u(header)) + "." + b64u(pay);
  EXPECT_EQ(verify_outcome(hp + "." + mac_of(hp)), "invalid_token") << "padded header";
  const std::string pp = b64u(header) + "." + pad(b64u(pay));
  EXPECT_EQ(verify_outcome(pp + "." + mac_of(pp)), "invalid_token") << "padded payload";
  const std::string input = b64u(header) + "." + b64u(pay);
  EXPECT_EQ(verify_outcome(input + "." + pad(mac_of(input))), "invalid_token") << "padded signature";
}

TEST(SecurityTokenFormat, StandardBase64AndNonCanonicalEncodingsAreRefused) {
  const std::string input = b64u(kHeader) + "." + b64u(payload());
  const std::string mac = mac_of(input);
  // The last character of a 32-byte MAC carries 2 unused bits: setting them
  // gives another spelling of the same bytes, which must not be accepted.
  std::string spelled = mac;
  const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  const auto index = alphabet.find(spelled.back());
  ASSERT_NE(index, std::string::npos);
  spelled.back() = alphabet[index ^ 1];
  EXPECT_EQ(verify_outcome(input + "." + spelled), "invalid_token") << "non-canonical last character";
  // Standard-alphabet characters instead of '-' '_'.
  std::string standard = mac;
  for (auto& c : standard) {
    if (c == '-') c = '+';
    if (c == '_') c = '/';
  }
  if (standard != mac) {
    EXPECT_EQ(verify_outcome(input + "." + standard), "invalid_token");
  }
  EXPECT_EQ(verify_outcome(input + "." + mac + " "), "invalid_token") << "trailing space";
  EXPECT_EQ(verify_outcome(" " + input + "." + mac), "invalid_token") << "leading space";
}

TEST(SecurityTokenFormat, HeaderOrPayloadThatIsNotAJsonObjectIsRefused) {
  for (std::string_view header : {R"(["HS256","at+jwt"])", R"("HS256")", "1", "null", "", "{",
                                  R"({"alg":"HS256","typ":"at+jwt"} x)", R"({"alg":"HS256","typ":"at+jwt"}{})"}) {
    EXPECT_EQ(verify_outcome(forge(header, payload())), "invalid_token") << "header " << header;
  }
  for (std::string_view pay : {R"(["sub"])", R"("sub")", "42", "null", "", "{",
                               R"({"iss":"authd","aud":"authd","sub":"x","exp":1700000600} trailing)"}) {
    EXPECT_EQ(verify_outcome(forge(kHeader, pay)), "invalid_token") << "payload " << pay;
  }
}

TEST(SecurityTokenFormat, DuplicateMembersAreRefused) {
  // Parsers differ on which duplicate wins: refuse them all.
  for (std::string_view header : {R"({"alg":"HS256","alg":"HS256","typ":"at+jwt"})",
                                  R"({"alg":"none","alg":"HS256","typ":"at+jwt"})",
                                  R"({"alg":"HS256","typ":"at+jwt","typ":"at+jwt"})"}) {
    EXPECT_EQ(verify_outcome(forge(header, payload())), "invalid_token") << header;
  }
  EXPECT_EQ(verify_outcome(forge(kHeader, payload(R"(,"sub":"ffffffffffffffffffffffff")"))), "invalid_token");
  EXPECT_EQ(verify_outcome(forge(kHeader, payload(R"(,"exp":99999999999)"))), "invalid_token");
  EXPECT_EQ(verify_outcome(forge(kHeader, payload(R"(,"aud":"authd")"))), "invalid_token");
}

TEST(SecurityTokenFormat, AnyCritHeaderIsRefused) {
  for (std::string_view header : {R"({"alg":"HS256","typ":"at+jwt","crit":["exp"]})",
                                  R"({"alg":"HS256","typ":"at+jwt","crit":["b64"],"b64":false})",
                                  R"({"alg":"HS256","typ":"at+jwt","crit":["x-unknown"],"x-unknown":1})",
                                  R"({"alg":"HS256","typ":"at+jwt","crit":[]})",
                                  R"({"alg":"HS256","typ":"at+jwt","crit":null})"}) {
    EXPECT_EQ(verify_outcome(forge(header, payload())), "invalid_token") << header;
  }
}

TEST(SecurityTokenFormat, AHugeTokenIsRefusedCheaply) {
  const std::string big(1 << 20, 'A');
  EXPECT_EQ(verify_outcome(forge(kHeader, payload(R"(,"pad":")" + big + "\""))), "invalid_token");
}

}  // namespace
}  // namespace authd
