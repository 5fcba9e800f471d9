// Stops credential smuggling through the Authorization header (RFC 6750 §2.1,
// RFC 7617): only one well-formed credential is ever read — a Bearer header
// without a token, with two tokens, with characters outside b64token or mixed
// with another scheme is invalid_request (400), another scheme is
// missing_token, and Basic credentials with control characters, no ':' or an
// empty user-id are refused before any password is checked.
#include <gtest/gtest.h>

#include <string>

#include "authd/authorization.hpp"
#include "authd/crypto.hpp"
#include "test_support.hpp"

namespace authd {
namespace {

std::string bearer(std::string_view header) {
  auto parsed = parse_bearer_authorization(header);
  return parsed ? "ok:" + std::string(*parsed) : std::string(to_string(parsed.error().code));
}

std::string basic_of(std::string_view user_pass) { return "Basic " + crypto::base64_encode(user_pass); }

TEST(SecurityAuthorizationHeader, ControlAWellFormedBearerTokenIsRead) {
  EXPECT_EQ(bearer("Bearer abc.DEF-_~+/9"), "ok:abc.DEF-_~+/9");
  EXPECT_EQ(bearer("bearer abc=="), "ok:abc==");  // the scheme is case-insensitive; '=' only at the end
}

TEST(SecurityAuthorizationHeader, NoBearerCredentialsIsMissingToken) {
  EXPECT_EQ(bearer(""), "no_credentials");
  EXPECT_EQ(bearer(basic_of("alice:pw")), "no_credentials");
  EXPECT_EQ(bearer("Digest username=\"a\""), "no_credentials");
  EXPECT_EQ(bearer("Bearerabc"), "no_credentials");
}

TEST(SecurityAuthorizationHeader, MalformedBearerIsInvalidRequest) {
  EXPECT_EQ(bearer("Bearer"), "malformed_credentials") << "no token";
  EXPECT_EQ(bearer("Bearer   "), "malformed_credentials") << "only blanks";
  EXPECT_EQ(bearer("Bearer a.b.c d.e.f"), "malformed_credentials") << "two tokens";
  EXPECT_EQ(bearer("Bearer a.b.c,d.e.f"), "malformed_credentials") << "two tokens, comma";
  EXPECT_EQ(bearer("Bearer x, Basic y"), "malformed_credentials") << "two schemes";
  EXPECT_EQ(bearer("Bearer a$b"), "malformed_credentials");
  EXPECT_EQ(bearer("Bearer a\"b"), "malformed_credentials");
  EXPECT_EQ(bearer("Bearer a=b"), "malformed_credentials") << "'=' inside";
  EXPECT_EQ(bearer("Bearer \xc3\xa9t\xc3\xa9"), "malformed_credentials") << "non-ASCII";
  EXPECT_EQ(bearer(std::string("Bearer a\0b", 10)), "malformed_credentials") << "NUL";
  EXPECT_EQ(bearer("Bearer a\x01" "b"), "malformed_credentials") << "control character";
  EXPECT_EQ(bearer("Bearer token=\"abc\""), "malformed_credentials") << "auth-param syntax";
}

TEST(SecurityAuthorizationHeader, BasicCredentialsAreReadStrictly) {
  auto ok = parse_basic_authorization(basic_of("alice:pa:ss"));
  ASSERT_TRUE(ok);  // control
  EXPECT_EQ(ok->username, "alice");
  EXPECT_EQ(ok->password, "pa:ss");
  EXPECT_FALSE(parse_basic_authorization(basic_of("alice"))) << "no colon";
  EXPECT_FALSE(parse_basic_authorization(basic_of(":pw"))) << "empty user-id";
  EXPECT_FALSE(parse_basic_authorization(basic_of("al\tice:pw"))) << "control in user-id";
  EXPECT_FALSE(parse_basic_authorization(basic_of("alice:p\nw"))) << "control in password";
  EXPECT_FALSE(parse_basic_authorization(basic_of(std::string("alice:p\0w", 9)))) << "NUL in password";
  EXPECT_FALSE(parse_basic_authorization("Basic !!!!")) << "not base64";
  EXPECT_FALSE(parse_basic_authorization("Basic YWxpY2U6cHc")) << "unpadded";
  EXPECT_FALSE(parse_basic_authorization("Basic YWxpY2U6cHc= extra")) << "two credentials";
  EXPECT_FALSE(parse_basic_authorization("Basic")) << "no credentials";
  EXPECT_FALSE(parse_basic_authorization("Bearer YWxpY2U6cHc=")) << "another scheme";
}

}  // namespace
}  // namespace authd
