// Attack: path confusion. A client writes a protected path so that authd's
// access rules read it as something else than the web server serves
// (/app/./admin, /app//admin, /app/public/../admin, /app/admin;x, %2e%2e,
// %2f, %252e, NUL, overlong UTF-8, /app/ADMIN on a case-insensitive app) and
// slips past the /app/admin/ rule. Paths are canonicalised once, ambiguous
// ones refused, and rules match the canonical path.
#include <gtest/gtest.h>

#include "authd/access_rules.hpp"
#include "authd/request_path.hpp"

namespace authd {
namespace {

std::string canon(std::string_view raw) {
  auto path = canonical_uri_path(raw);
  return path ? *path : "REFUSED";
}

TEST(SecurityRequestPath, DotSegmentsSlashesAndParametersAreResolvedOnce) {
  EXPECT_EQ(canon("/app/./admin/x"), "/app/admin/x");
  EXPECT_EQ(canon("/app//admin///x"), "/app/admin/x");
  EXPECT_EQ(canon("/app/public/../admin/x"), "/app/admin/x");
  EXPECT_EQ(canon("/app/public/%2e%2e/admin/x"), "/app/admin/x");
  EXPECT_EQ(canon("/app/admin;jsessionid=1/x"), "/app/admin/x");
  EXPECT_EQ(canon("/app/public/..;/admin/x"), "/app/admin/x");
  EXPECT_EQ(canon("/app/admin/."), "/app/admin/");
  EXPECT_EQ(canon("/app/admin/x/.."), "/app/admin/");
  EXPECT_EQ(canon("/app/a%20b?q=%2f#frag"), "/app/a b");
  EXPECT_EQ(canon("/"), "/");
  EXPECT_EQ(canon("/%C3%A9t%C3%A9"), "/\xC3\xA9t\xC3\xA9");
}

TEST(SecurityRequestPath, AmbiguousInputIsRefused) {
  for (const char* raw : {"/app%2fadmin/x", "/app%2Fadmin", "/app%5cadmin", "/app\\admin", "/app/%252e%252e/admin",
                          "/app/%25", "/app/%00", "/app/\x01", "/app/%zz", "/app/%4", "/app/%3b/x", "/app/%3F",
                          "/app/%C0%AE%C0%AE/admin", "/app/%ED%A0%80", "/app/%FF", "/..", "/app/../../etc/passwd",
                          "app/admin", ""}) {
    EXPECT_FALSE(canonical_uri_path(raw)) << raw;
  }
}

TEST(SecurityRequestPath, AServerDecodedPathIsNotDecodedAgain) {
  EXPECT_EQ(*canonical_path("/app/100%25/x", false), "/app/100%25/x");  // a literal '%' stays one
  EXPECT_EQ(*canonical_path("/app/admin/../x", false), "/app/x");
}

AccessRules rules(std::string_view text) {
  auto parsed = AccessRules::parse(text);
  EXPECT_TRUE(parsed) << (parsed ? "" : parsed.error().message);
  return parsed ? *parsed : AccessRules{};
}

TEST(SecurityRequestPath, ADirectoryRuleCoversTheDirectoryWithoutItsSlash) {
  const auto r = rules("/app/ * public; /app/admin/ * delete");
  EXPECT_EQ(r.decide("GET", "/app/admin").capability, Capability::delete_);
  EXPECT_EQ(r.decide("GET", "/app/admin/").capability, Capability::delete_);
  EXPECT_FALSE(r.decide("GET", "/app/administrator").needs_token);
}

TEST(SecurityRequestPath, CaseIsExactUnlessTheRuleSaysOtherwise) {
  const auto exact = rules("/app/ * public; /app/admin/ * delete");
  EXPECT_FALSE(exact.decide("GET", "/app/ADMIN/x").needs_token);  // a case-sensitive app serves another file
  const auto folded = rules("/app/ * public; /app/Admin/ * delete case-insensitive");
  EXPECT_EQ(folded.decide("GET", "/app/ADMIN/x").capability, Capability::delete_);
  EXPECT_EQ(folded.decide("GET", "/APP/admin").capability, Capability::delete_);
  EXPECT_TRUE(folded.decide("GET", "/APP/other").denied);  // rule 1 is exact: unmatched
}

TEST(SecurityRequestPath, UnmatchedPathsAreDeniedByDefault) {
  auto r = rules("/app/public/ * public");
  EXPECT_TRUE(r.decide("GET", "/elsewhere").denied);
  // Forward-auth (GET /auth/check) asks only for what the proxy protects:
  // there the method's capability is the default, deny when configured.
  EXPECT_EQ(r.decide("DELETE", "/elsewhere", AccessPoint::forward_auth).capability, Capability::delete_);
  EXPECT_FALSE(r.decide("GET", "/elsewhere", AccessPoint::forward_auth).denied);
  r.check_unmatched = Unmatched::deny;
  EXPECT_TRUE(r.decide("GET", "/elsewhere", AccessPoint::forward_auth).denied);
  r.unmatched = Unmatched::method;
  EXPECT_EQ(r.decide("POST", "/elsewhere").capability, Capability::create);
  EXPECT_EQ(rules("/ * method").decide("PUT", "/x").capability, Capability::update);
  EXPECT_TRUE(rules("/ * public; /secret/ * deny").decide("GET", "/secret").denied);
}

TEST(SecurityRequestPath, RulePrefixesMustBeCanonical) {
  for (const char* bad : {"/app//admin/ * delete", "/app/../admin/ * delete", "/app/./x * read", "/a;b * read",
                          "/app/ * read sometimes"}) {
    EXPECT_FALSE(AccessRules::parse(bad)) << bad;
  }
}

}  // namespace
}  // namespace authd
