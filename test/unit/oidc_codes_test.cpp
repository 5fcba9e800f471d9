// Authorization codes (lib/oidc/authorization_codes.cpp): stored hashed,
// single use, 60 s, a replay reports what the first use issued; PKCE S256
// with the RFC 7636 Appendix B vector.
#include <gtest/gtest.h>

#include "authd/authorization_codes.hpp"
#include "test_support.hpp"

namespace authd {
namespace {

constexpr std::int64_t kNow = 1'700'000'000;

CodeGrant grant() {
  CodeGrant g;
  g.client_id = "client_0123456789abcdef01234567";
  g.redirect_uri = "https://app.example/cb";
  g.user_id = "u1";
  g.username = "alice";
  g.scope = "openid profile";
  g.nonce = "n-0S6_WzA2Mj";
  g.amr = "pwd otp";
  g.auth_time = kNow - 5;
  return g;
}

TEST(AuthorizationCodes, OneUseThenAReplayReportsWhatTheFirstIssued) {
  test::TempStore db;
  AuthorizationCodes codes(db.store());
  auto code = codes.issue(grant(), kNow);
  ASSERT_TRUE(code);
  EXPECT_GE(code->size(), 43u);
  auto stored = read_value(db.store(), [&](StoreTxn& txn) { return txn.list_entries("oidc_code"); });
  ASSERT_TRUE(stored);
  ASSERT_EQ(stored->size(), 1u);
  EXPECT_EQ(stored->front().first.find(*code), std::string::npos) << "kept only hashed";
  EXPECT_EQ(stored->front().second.find(*code), std::string::npos);

  auto first = codes.redeem(*code, kNow + 1);
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_EQ(first->username, "alice");
  EXPECT_EQ(first->nonce, "n-0S6_WzA2Mj");
  EXPECT_EQ(first->amr, "pwd otp");
  ASSERT_TRUE(codes.record_issued(*code, {"family-1", "jti-1", kNow + 900}, kNow + 1));

  CodeReplay replay;
  EXPECT_EQ(outcome(codes.redeem(*code, kNow + 2, &replay)), "invalid_token");
  EXPECT_EQ(replay.issued.refresh_family, "family-1");
  EXPECT_EQ(replay.issued.access_jti, "jti-1");
  EXPECT_EQ(replay.grant.username, "alice");
  EXPECT_EQ(outcome(codes.redeem(*code, kNow + 3)), "invalid_token");
}

TEST(AuthorizationCodes, ExpireAfterSixtySecondsAndRefuseGarbage) {
  test::TempStore db;
  AuthorizationCodes codes(db.store());
  auto code = codes.issue(grant(), kNow);
  ASSERT_TRUE(code);
  EXPECT_EQ(outcome(codes.redeem(*code, kNow + 60)), "invalid_token");
  auto fresh = codes.issue(grant(), kNow);
  ASSERT_TRUE(fresh);
  EXPECT_EQ(outcome(codes.redeem(*fresh, kNow + 59)), "ok");
  EXPECT_EQ(outcome(codes.redeem("", kNow)), "invalid_token");
  EXPECT_EQ(outcome(codes.redeem("no such code", kNow)), "invalid_token");
  EXPECT_EQ(outcome(codes.redeem(std::string(200, 'a'), kNow)), "invalid_token");
}

TEST(Pkce, S256MatchesTheRfc7636Vector) {
  const std::string verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
  const std::string challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
  EXPECT_TRUE(valid_pkce_challenge(challenge));
  EXPECT_TRUE(pkce_s256_matches(verifier, challenge));
  EXPECT_FALSE(pkce_s256_matches(verifier + "x", challenge));
  EXPECT_FALSE(pkce_s256_matches(challenge, challenge)) << "plain is not S256";
  EXPECT_FALSE(pkce_s256_matches("short", challenge));
  EXPECT_FALSE(valid_pkce_challenge("abc"));
  EXPECT_FALSE(valid_pkce_challenge(std::string(42, 'a') + "="));
}

}  // namespace
}  // namespace authd
