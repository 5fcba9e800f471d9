// Attack: account takeover through a provider's claims. (1) The operator
// chose a subject claim (e.g. "oid"), a token lacks it, and authd falls back
// to `sub`, which at that provider means something else and may equal
// another user's chosen subject. (2) A user of the provider sets an email
// address they do not own (email_verified false or absent), and authd names
// or links an account by it. A missing configured subject now fails the
// sign-in; an unverified email is never used.
#include <gtest/gtest.h>

#include "authd/json.hpp"
#include "authd/oauth.hpp"

namespace authd {
namespace {

OAuthProvider provider(std::string subject_claim) {
  OAuthProvider p;
  p.name = "corp";
  p.subject_claim = std::move(subject_claim);
  return p;
}

Json claims(std::string_view text) {
  auto parsed = Json::parse(text);
  EXPECT_TRUE(parsed);
  return parsed ? *parsed : Json::object();
}

TEST(SecurityOidcIdentity, AMissingConfiguredSubjectClaimFailsInsteadOfFallingBackToSub) {
  auto identity = identity_from_claims(provider("oid"), claims(R"({"sub":"victim-sub","name":"M"})"));
  ASSERT_FALSE(identity);
  EXPECT_EQ(identity.error().code, Errc::upstream_failed);
  auto control = identity_from_claims(provider("oid"), claims(R"({"sub":"s","oid":"o-1"})"));
  ASSERT_TRUE(control);
  EXPECT_EQ(control->subject, "o-1");
}

TEST(SecurityOidcIdentity, AnUnverifiedEmailNeverNamesOrIsStored) {
  for (const char* text : {R"({"sub":"s1","email":"ceo@example.com"})",
                           R"({"sub":"s1","email":"ceo@example.com","email_verified":false})",
                           R"({"sub":"s1","email":"ceo@example.com","email_verified":"false"})"}) {
    auto identity = identity_from_claims(provider("sub"), claims(text));
    ASSERT_TRUE(identity) << text;
    EXPECT_EQ(identity->email, "") << text;
    EXPECT_NE(identity->username_hint, "ceo@example.com") << text;
  }
  auto verified =
      identity_from_claims(provider("sub"), claims(R"({"sub":"s1","email":"me@example.com","email_verified":true})"));
  ASSERT_TRUE(verified);
  EXPECT_EQ(verified->email, "me@example.com");
  EXPECT_EQ(verified->username_hint, "me@example.com");
}

}  // namespace
}  // namespace authd
