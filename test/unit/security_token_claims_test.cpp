// Stops replay of expired, not-yet-valid or foreign tokens (RFC 7519 §4.1,
// RFC 8725 §3.8-3.10): `exp` is required, must be an integer and in the future
// (with only the configured leeway), `nbf` and `iat` are honoured, and `iss`,
// `aud` and `sub` must be ours — a token minted for another audience or by
// another issuer sharing the key is refused.
#include <gtest/gtest.h>

#include <string>

#include "security_support.hpp"
#include "test_support.hpp"

namespace authd {
namespace {

using namespace sec;
using namespace std::chrono_literals;

std::string verify_with(const TokenPolicy& policy, const std::string& pay, std::int64_t now = kNow) {
  return outcome(service(policy).verify(forge(kHeader, pay), kAccessTokenType, now));
}
std::string verify(const std::string& pay) { return verify_with(TokenPolicy{}, pay); }

std::string claims(std::string_view exp_json, std::string_view more = "") {
  return bare_payload(R"("iss":"authd","aud":"authd","sub":"s1","exp":)" + std::string(exp_json) +
                      std::string(more));
}

TEST(SecurityTokenClaims, ExpIsRequiredAndMustBeAnInteger) {
  EXPECT_EQ(verify(claims(std::to_string(kNow + 60))), "ok");  // control
  EXPECT_EQ(verify(bare_payload(R"("iss":"authd","aud":"authd","sub":"s1")")), "invalid_token") << "no exp";
  for (std::string_view exp : {R"("1700000600")", "1700000600.0", "1.7000006e9", "null", "true", "[1700000600]",
                               R"({"t":1700000600})"}) {
    EXPECT_EQ(verify(claims(exp)), "invalid_token") << "exp " << exp;
  }
}

TEST(SecurityTokenClaims, ExpMustBeInTheFuture) {
  EXPECT_EQ(verify(claims(std::to_string(kNow + 1))), "ok");
  EXPECT_EQ(verify(claims(std::to_string(kNow))), "invalid_token") << "exp == now";
  EXPECT_EQ(verify(claims(std::to_string(kNow - 1))), "invalid_token");
  EXPECT_EQ(verify(claims("0")), "invalid_token") << "1970";
  EXPECT_EQ(verify(claims("-9223372036854775808")), "invalid_token");
  EXPECT_EQ(verify(claims("9223372036854775807")), "ok") << "a far exp must not overflow into the past";
}

TEST(SecurityTokenClaims, LeewayIsExactlyTheConfiguredSkew) {
  TokenPolicy policy;
  policy.leeway = 30s;
  EXPECT_EQ(verify_with(policy, claims(std::to_string(kNow - 29))), "ok");
  EXPECT_EQ(verify_with(policy, claims(std::to_string(kNow - 30))), "invalid_token");
  EXPECT_EQ(verify_with(policy, claims(std::to_string(kNow - 3600))), "invalid_token");
  // No leeway by default.
  EXPECT_EQ(verify(claims(std::to_string(kNow - 1))), "invalid_token");
}

TEST(SecurityTokenClaims, NbfIsHonoured) {
  const auto exp = std::to_string(kNow + 600);
  EXPECT_EQ(verify(claims(exp, R"(,"nbf":)" + std::to_string(kNow))), "ok");
  EXPECT_EQ(verify(claims(exp, R"(,"nbf":)" + std::to_string(kNow + 1))), "invalid_token");
  EXPECT_EQ(verify(claims(exp, R"(,"nbf":"1")")), "invalid_token") << "nbf not a number";
  EXPECT_EQ(verify(claims(exp, R"(,"nbf":1.5)")), "invalid_token") << "nbf not an integer";
  TokenPolicy policy;
  policy.leeway = 30s;
  EXPECT_EQ(verify_with(policy, claims(exp, R"(,"nbf":)" + std::to_string(kNow + 30))), "ok");
  EXPECT_EQ(verify_with(policy, claims(exp, R"(,"nbf":)" + std::to_string(kNow + 31))), "invalid_token");
}

TEST(SecurityTokenClaims, IatInTheFutureIsRefused) {
  const auto exp = std::to_string(kNow + 600);
  EXPECT_EQ(verify(claims(exp, R"(,"iat":)" + std::to_string(kNow))), "ok");
  EXPECT_EQ(verify(claims(exp, R"(,"iat":)" + std::to_string(kNow + 120))), "invalid_token");
  EXPECT_EQ(verify(claims(exp, R"(,"iat":"now")")), "invalid_token");
}

TEST(SecurityTokenClaims, IssuerMustBeOurs) {
  const auto exp = std::to_string(kNow + 600);
  EXPECT_EQ(verify(bare_payload(R"("aud":"authd","sub":"s1","exp":)" + exp)), "invalid_token") << "no iss";
  for (std::string_view iss : {R"("evil")", R"("Authd")", R"("authd ")", R"(["authd"])", "null", R"("")"}) {
    EXPECT_EQ(verify(bare_payload(R"("iss":)" + std::string(iss) + R"(,"aud":"authd","sub":"s1","exp":)" + exp)),
              "invalid_token")
        << "iss " << iss;
  }
  TokenPolicy policy;
  policy.issuer = "https://auth.example.com";
  EXPECT_EQ(verify_with(policy, claims(exp)), "invalid_token") << "default issuer under a configured one";
  EXPECT_EQ(verify_with(policy, bare_payload(R"("iss":"https://auth.example.com","aud":"authd","sub":"s1","exp":)" + exp)),
            "ok");
}

TEST(SecurityTokenClaims, AudienceMustIncludeOurs) {
  const auto exp = std::to_string(kNow + 600);
  auto with_aud = [&](std::string_view aud) {
    return bare_payload(R"("iss":"authd","aud":)" + std::string(aud) + R"(,"sub":"s1","exp":)" + exp);
  };
  EXPECT_EQ(verify(bare_payload(R"("iss":"authd","sub":"s1","exp":)" + exp)), "invalid_token") << "no aud";
  EXPECT_EQ(verify(with_aud(R"("other-api")")), "invalid_token");
  EXPECT_EQ(verify(with_aud(R"(["other-api","another"])")), "invalid_token");
  EXPECT_EQ(verify(with_aud("[]")), "invalid_token");
  EXPECT_EQ(verify(with_aud("null")), "invalid_token");
  EXPECT_EQ(verify(with_aud(R"(["other-api","authd"])")), "ok");
  TokenPolicy policy;
  policy.audience = "records-api";
  EXPECT_EQ(verify_with(policy, with_aud(R"("authd")")), "invalid_token");
  EXPECT_EQ(verify_with(policy, with_aud(R"("records-api")")), "ok");
}

TEST(SecurityTokenClaims, SubjectIsRequired) {
  const auto exp = std::to_string(kNow + 600);
  EXPECT_EQ(verify(bare_payload(R"("iss":"authd","aud":"authd","exp":)" + exp)), "invalid_token");
  EXPECT_EQ(verify(bare_payload(R"("iss":"authd","aud":"authd","sub":"","exp":)" + exp)), "invalid_token");
  EXPECT_EQ(verify(bare_payload(R"("iss":"authd","aud":"authd","sub":42,"exp":)" + exp)), "invalid_token");
}

TEST(SecurityTokenClaims, IssuedTokensCarryTheirOwnLimits) {
  TokenPolicy policy;
  policy.ttl = 120s;
  const auto tokens = service(policy);
  const auto token = tokens.issue(kAccessTokenType, "s1", "alice", kNow);
  EXPECT_EQ(outcome(tokens.verify(token, kAccessTokenType, kNow + 119)), "ok");
  EXPECT_EQ(outcome(tokens.verify(token, kAccessTokenType, kNow + 120)), "invalid_token");
}

}  // namespace
}  // namespace authd
