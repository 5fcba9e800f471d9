// Stops algorithm substitution (RFC 8725 §2.1, §3.1): a token whose header
// says "none", another algorithm or a case variant of HS256 is refused, even
// when its MAC is valid under our key, and before any MAC is computed — so an
// unsigned token or a public key used as an HMAC secret gets nowhere.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "security_support.hpp"
#include "test_support.hpp"

namespace authd {
namespace {

using namespace sec;

std::string header_with_alg(std::string_view alg_json) {
  return R"({"alg":)" + std::string(alg_json) + R"(,"typ":"at+jwt"})";
}

TEST(SecurityTokenAlg, ControlTheCorrectAlgorithmVerifies) {
  const auto tokens = service();
  EXPECT_EQ(outcome(tokens.verify(forge(kHeader, payload()), kAccessTokenType, kNow)), "ok");
}

TEST(SecurityTokenAlg, NoneIsRefusedWithAndWithoutASignature) {
  const auto tokens = service();
  for (std::string_view alg : {R"("none")", R"("None")", R"("NONE")", R"("nOnE")", R"("")"}) {
    const std::string header = header_with_alg(alg);
    const std::string unsigned_token = b64u(header) + "." + b64u(payload()) + ".";
    EXPECT_EQ(outcome(tokens.verify(unsigned_token, kAccessTokenType, kNow)), "invalid_token") << alg;
    // The same header with a MAC that is valid under our key: the algorithm
    // named in the header is still not ours.
    EXPECT_EQ(outcome(tokens.verify(forge(header, payload()), kAccessTokenType, kNow)), "invalid_token") << alg;
  }
}

TEST(SecurityTokenAlg, OtherAlgorithmsAndCaseVariantsAreRefusedEvenWithAValidMac) {
  const auto tokens = service();
  const std::vector<std::string_view> algs{
      R"("HS384")", R"("HS512")", R"("RS256")", R"("RS512")", R"("ES256")", R"("PS256")", R"("EdDSA")",
      R"("hs256")", R"("Hs256")", R"("hS256")", R"("HS256 ")", R"(" HS256")", R"("HS256\u0000")",
      R"("HS2566")", R"("HS25")", R"(256)", R"(null)", R"(true)", R"(["HS256"])", R"({"alg":"HS256"})"};
  for (auto alg : algs) {
    EXPECT_EQ(outcome(tokens.verify(forge(header_with_alg(alg), payload()), kAccessTokenType, kNow)),
              "invalid_token")
        << "alg " << alg;
  }
  // No alg member at all.
  EXPECT_EQ(outcome(tokens.verify(forge(R"({"typ":"at+jwt"})", payload()), kAccessTokenType, kNow)),
            "invalid_token");
}

TEST(SecurityTokenAlg, APublicKeyUsedAsHmacSecretGetsNowhere) {
  // The classic RS256 -> HS256 confusion: the attacker MACs with a public key
  // (here any PEM text) and claims either algorithm.
  const std::string pem =
      "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEexamplepublickeymaterial\n-----END PUBLIC KEY-----\n";
  const auto tokens = service();
  for (std::string_view alg : {R"("HS256")", R"("RS256")", R"("ES256")"}) {
    EXPECT_EQ(outcome(tokens.verify(forge(header_with_alg(alg), payload(), pem), kAccessTokenType, kNow)),
              "invalid_token")
        << alg;
  }
}

TEST(SecurityTokenAlg, TheAlgorithmIsCheckedBeforeTheSignature) {
  // A signature part that is not even base64url: if the MAC step ran first it
  // would complain about the signature; the refusal must name the algorithm.
  const auto tokens = service();
  const std::string token = b64u(header_with_alg(R"("none")")) + "." + b64u(payload()) + ".!!!";
  auto result = tokens.verify(token, kAccessTokenType, kNow);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code, Errc::invalid_token);
  EXPECT_NE(result.error().message.find("algorithm"), std::string::npos) << result.error().message;
}

}  // namespace
}  // namespace authd
