// Authorization codes (lib/oidc/authorization_codes.cpp): stored hashed,
// single use, 60 s, a replay reports what the first use issued; PKCE S256
// with the RFC 7636 Appendix B vector. Pushed authorization requests
// (lib/oidc/pushed_requests.cpp): kept hashed, bound to their client, 90 s
// until first opened, then the flow's 10 minutes, gone once finished.
#include <gtest/gtest.h>

#include "authd/authorization_codes.hpp"
#include "authd/pushed_requests.hpp"
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

constexpr std::string_view kClient = "client_0123456789abcdef01234567";

TEST(PushedRequests, BoundToTheirClientKeptHashedAndUsedUpWhenFinished) {
  test::TempStore db;
  PushedRequests pushed(db.store());
  const RequestParameters parameters{{"response_type", "code"}, {"scope", "openid"}, {"state", "s1"}};
  auto uri = pushed.push(kClient, parameters, kNow);
  ASSERT_TRUE(uri);
  ASSERT_TRUE(uri->starts_with(kRequestUriPrefix));
  const auto token = uri->substr(kRequestUriPrefix.size());
  auto stored = read_value(db.store(), [&](StoreTxn& txn) { return txn.list_entries("oidc_par"); });
  ASSERT_TRUE(stored);
  ASSERT_EQ(stored->size(), 1u);
  EXPECT_EQ(stored->front().first.find(token), std::string::npos) << "kept only hashed";

  EXPECT_EQ(outcome(pushed.open(*uri, "client_ffffffffffffffffffffffff", kNow)), "invalid_token")
      << "another client's request_uri";
  auto opened = pushed.open(*uri, kClient, kNow + 1);
  ASSERT_TRUE(opened) << opened.error().message;
  EXPECT_EQ(*opened, parameters);

  RequestParameters settled = parameters;
  settled.emplace("signed_in_after", "1700000001");
  ASSERT_TRUE(pushed.update(*uri, settled, kNow + 2));
  EXPECT_EQ(pushed.open(*uri, kClient, kNow + 3).value_or(RequestParameters{}), settled);

  ASSERT_TRUE(pushed.finish(*uri));
  EXPECT_EQ(outcome(pushed.open(*uri, kClient, kNow + 4)), "invalid_token");
  EXPECT_EQ(outcome(pushed.update(*uri, settled, kNow + 4)), "invalid_token");
}

TEST(PushedRequests, ExpireUnopenedAfterTheirTtlButLastTheFlowOnceOpened) {
  test::TempStore db;
  PushedRequests pushed(db.store());
  auto unopened = pushed.push(kClient, {{"scope", "openid"}}, kNow);
  ASSERT_TRUE(unopened);
  EXPECT_EQ(outcome(pushed.open(*unopened, kClient, kNow + kPushedRequestTtl)), "invalid_token");

  auto opened = pushed.push(kClient, {{"scope", "openid"}}, kNow);
  ASSERT_TRUE(opened);
  ASSERT_TRUE(pushed.open(*opened, kClient, kNow + kPushedRequestTtl - 1));
  EXPECT_EQ(outcome(pushed.open(*opened, kClient, kNow + kPushedRequestTtl + 60)), "ok")
      << "a sign-in in progress outlives the first TTL";
  EXPECT_EQ(outcome(pushed.open(*opened, kClient, kNow + kPushedRequestTtl - 1 + kPushedRequestFlowTtl)),
            "invalid_token");

  for (const auto* bad : {"", "urn:ietf:params:oauth:request_uri:", "urn:ietf:params:oauth:request_uri:short",
                          "https://attacker.example/request", "urn:ietf:params:oauth:request_uri:"
                          "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa%"}) {
    EXPECT_EQ(outcome(pushed.open(bad, kClient, kNow)), "invalid_token") << bad;
  }
  EXPECT_TRUE(pushed.finish("garbage")) << "nothing to use up";
}

}  // namespace
}  // namespace authd
