// Request parsing helpers: query strings and cookies (the route path from
// SCRIPT_NAME + PATH_INFO is in base_path_test.cpp).
#include <gtest/gtest.h>

#include "http/query.hpp"
#include "http/request.hpp"

namespace authd::http {
namespace {

TEST(ParseQuery, DecodesPercentAndPlusAndKeepsTheFirstOccurrence) {
  auto q = parse_query("code=a%2Fb&state=x+y&code=second&&empty=&flag");
  EXPECT_EQ(q["code"], "a/b");
  EXPECT_EQ(q["state"], "x y");
  EXPECT_EQ(q["empty"], "");
  EXPECT_TRUE(q.contains("flag"));
  EXPECT_EQ(q.size(), 4u);
}

TEST(ParseQuery, AMalformedEscapeKeepsTheRawText) {
  auto q = parse_query("a=%zz&b=%4");
  EXPECT_EQ(q["a"], "%zz");
  EXPECT_EQ(q["b"], "%4");
}

TEST(CookieValue, FindsTheNamedCookieOnly) {
  EXPECT_EQ(cookie_value("a=1; auth=tok; b=2", "auth"), "tok");
  EXPECT_EQ(cookie_value("xauth=no; auth=yes", "auth"), "yes");
  EXPECT_EQ(cookie_value("auth=\"quoted\"", "auth"), "quoted");
  EXPECT_EQ(cookie_value("a=1", "auth"), "");
  EXPECT_EQ(cookie_value("", "auth"), "");
  EXPECT_EQ(cookie_value("  auth=spaced  ;x=1", "auth"), "spaced");
}

}  // namespace
}  // namespace authd::http
