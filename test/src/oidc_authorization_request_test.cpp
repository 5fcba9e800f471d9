// The authorization request's parameters (src/api/oidc/authorization_request.cpp)
// where a front server that passes any byte would let them through: a nonce
// that is not UTF-8 could not be put in the ID token as JSON text, so it is
// refused before a code is issued for it (lighttpd refuses such a query
// itself, so the black-box test behind it cannot reach this check).
#include "api/oidc/authorization_request.hpp"

#include <gtest/gtest.h>

#include <string>

namespace authd::handlers::oidc {
namespace {

OidcClient wiki() {
  OidcClient client;
  client.id = "client_0123456789abcdef01234567";
  client.redirect_uris = {"https://wiki.example/cb"};
  client.scopes = {"openid", "profile"};
  return client;
}

Query request_with_nonce(std::string nonce) {
  return Query{{"response_type", "code"},
               {"scope", "openid"},
               {"client_id", "client_0123456789abcdef01234567"},
               {"redirect_uri", "https://wiki.example/cb"},
               {"state", "s1"},
               {"nonce", std::move(nonce)}};
}

TEST(AuthorizationRequest, ANonceThatIsNotUtf8IsRefused) {
  EXPECT_FALSE(refused_parameters(wiki(), request_with_nonce("n-\xC3\xA9t\xC3\xA9")))
      << "a UTF-8 nonce is taken";
  for (const std::string& bad : {std::string("n\xFF"), std::string("n\xC3"), std::string("\xED\xA0\x80")}) {
    const auto refused = refused_parameters(wiki(), request_with_nonce(bad));
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->error, "invalid_request");
    EXPECT_EQ(refused->description, "nonce is not UTF-8 text");
  }
}

}  // namespace
}  // namespace authd::handlers::oidc
