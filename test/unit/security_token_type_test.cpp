// Stops token-kind confusion (RFC 8725 §3.11, RFC 9068): an OAuth state cookie
// signed with the same key never passes as an access token, an access token
// never passes as a state cookie, and a token without our `typ` (an ID token,
// a plain "JWT") is refused — even when its MAC, sub and every claim are valid.
#include <gtest/gtest.h>

#include <string>

#include "authd/oauth.hpp"
#include "security_support.hpp"
#include "test_support.hpp"

namespace authd {
namespace {

using namespace sec;

TEST(SecurityTokenType, AStateTokenIsNeverAnAccessToken) {
  const auto tokens = service();
  // A real user's id as subject: only the type tells the two apart.
  const auto state = tokens.issue(kOAuthStateTokenType, kSub, "alice", kNow);
  EXPECT_EQ(outcome(tokens.verify(state, kOAuthStateTokenType, kNow)), "ok");  // control
  EXPECT_EQ(outcome(tokens.verify(state, kAccessTokenType, kNow)), "invalid_token");
}

TEST(SecurityTokenType, AnAccessTokenIsNeverAStateToken) {
  const auto tokens = service();
  const auto access = tokens.issue(kAccessTokenType, kSub, "alice", kNow);
  EXPECT_EQ(outcome(tokens.verify(access, kAccessTokenType, kNow)), "ok");  // control
  EXPECT_EQ(outcome(tokens.verify(access, kOAuthStateTokenType, kNow)), "invalid_token");
  // Even one carrying every member of a state and the state's subject.
  const auto lookalike = tokens.issue(kAccessTokenType, "oauth-state", "", kNow,
                                      {{"provider", "p"}, {"state", "s"}, {"verifier", "v"}, {"nonce", "n"}});
  EXPECT_EQ(outcome(open_oauth_state(tokens, lookalike, kNow)), "provider_refused");
}

TEST(SecurityTokenType, AStateCookieSealedBySealOauthStateIsNotAnAccessToken) {
  const auto tokens = service();
  const auto cookie = seal_oauth_state(tokens, OAuthState{"p", "s", "v", "n"}, kNow, std::chrono::seconds(600));
  EXPECT_EQ(outcome(open_oauth_state(tokens, cookie, kNow)), "ok");  // control
  EXPECT_EQ(outcome(tokens.verify(cookie, kAccessTokenType, kNow)), "invalid_token");
}

TEST(SecurityTokenType, MissingOrForeignTypIsRefused) {
  const auto tokens = service();
  for (std::string_view header : {R"({"alg":"HS256"})", R"({"alg":"HS256","typ":"JWT"})",
                                  R"({"alg":"HS256","typ":"jwt"})", R"({"alg":"HS256","typ":"id_token+jwt"})",
                                  R"({"alg":"HS256","typ":"authd-state+jwt"})", R"({"alg":"HS256","typ":""})",
                                  R"({"alg":"HS256","typ":["at+jwt"]})", R"({"alg":"HS256","typ":null})"}) {
    EXPECT_EQ(outcome(tokens.verify(forge(header, payload()), kAccessTokenType, kNow)), "invalid_token") << header;
  }
}

}  // namespace
}  // namespace authd
