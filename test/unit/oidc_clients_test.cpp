// The OpenID Connect client registry (lib/oidc/clients.cpp): secrets shown
// once and kept only hashed, exact redirect URIs, constant-time checks.
#include <gtest/gtest.h>

#include "authd/oidc_clients.hpp"
#include "test_support.hpp"

namespace authd {
namespace {

constexpr std::int64_t kNow = 1'700'000'000;

OidcClient spec(std::string name, std::vector<std::string> uris) {
  OidcClient client;
  client.name = std::move(name);
  client.redirect_uris = std::move(uris);
  return client;
}

TEST(OidcClients, AConfidentialClientGetsASecretStoredOnlyHashed) {
  test::TempStore db;
  OidcClients clients(db.store());
  auto issued = clients.add(spec("Wiki", {"https://wiki.example.org/cb"}), kNow);
  ASSERT_TRUE(issued) << issued.error().message;
  EXPECT_TRUE(issued->client.id.starts_with("client_"));
  EXPECT_GE(issued->secret.size(), 40u);
  EXPECT_EQ(issued->client.scopes, (std::vector<std::string>{"openid", "profile", "email", "roles"}));
  auto stored = read_value(db.store(), [&](StoreTxn& txn) { return txn.get_entry("oidc_client", issued->client.id); });
  ASSERT_TRUE(stored && *stored);
  EXPECT_EQ((*stored)->find(issued->secret), std::string::npos) << "the secret itself is never stored";
  EXPECT_EQ(describe_client(issued->client).dump().find("secret"), std::string::npos);

  EXPECT_EQ(outcome(clients.authenticate(issued->client.id, issued->secret)), "ok");
  EXPECT_EQ(outcome(clients.authenticate(issued->client.id, issued->secret + "x")), "invalid_login");
  EXPECT_EQ(outcome(clients.authenticate(issued->client.id, "")), "invalid_login");
  EXPECT_EQ(outcome(clients.authenticate("client_000000000000000000000000", issued->secret)), "invalid_login");
}

TEST(OidcClients, RotatingTheSecretEndsTheOldOne) {
  test::TempStore db;
  OidcClients clients(db.store());
  auto issued = clients.add(spec("Wiki", {"https://wiki.example.org/cb"}), kNow);
  ASSERT_TRUE(issued);
  auto rotated = clients.rotate_secret(issued->client.id);
  ASSERT_TRUE(rotated);
  EXPECT_EQ(outcome(clients.authenticate(issued->client.id, issued->secret)), "invalid_login");
  EXPECT_EQ(outcome(clients.authenticate(issued->client.id, rotated->secret)), "ok");
}

TEST(OidcClients, APublicClientHasNoSecretAndCannotAuthenticateWithOne) {
  test::TempStore db;
  OidcClients clients(db.store());
  auto s = spec("App", {"http://127.0.0.1:8123/callback"});
  s.is_public = true;
  auto issued = clients.add(s, kNow);
  ASSERT_TRUE(issued) << issued.error().message;
  EXPECT_TRUE(issued->secret.empty());
  EXPECT_EQ(outcome(clients.authenticate(issued->client.id, "")), "invalid_login");
  EXPECT_EQ(outcome(clients.rotate_secret(issued->client.id)), "invalid_input");
}

TEST(OidcClients, ListFindRemove) {
  test::TempStore db;
  OidcClients clients(db.store());
  auto a = clients.add(spec("A", {"https://a.example/cb"}), kNow);
  auto b = clients.add(spec("B", {"https://b.example/cb"}), kNow);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(clients.list()->size(), 2u);
  EXPECT_EQ(clients.find(b->client.id)->name, "B");
  EXPECT_EQ(outcome(clients.remove(a->client.id)), "ok");
  EXPECT_EQ(outcome(clients.remove(a->client.id)), "not_found");
  EXPECT_EQ(outcome(clients.find(a->client.id)), "not_found");
  EXPECT_EQ(outcome(clients.find("../../etc")), "not_found");
  EXPECT_EQ(clients.list()->size(), 1u);
}

// Attack: "http://127.attacker.example/cb" passed as a loopback address
// (host.starts_with("127.")), so a plain-http redirect URI on a host anyone can
// register carried codes in clear. Only literal 127.0.0.0/8, [::1] and
// localhost are loopback (RFC 8252 §7.3, §8.3); every other name needs https,
// and a URI stored before this rule is no longer followed.
TEST(OidcClients, LoopbackMeansLiteralLoopback) {
  for (const char* good : {"http://127.0.0.1/cb", "http://127.0.0.1:8080/cb", "http://127.255.3.4/cb",
                           "http://127.0.0.0/cb", "http://[::1]/cb", "http://localhost/cb", "http://localhost:1/cb",
                           "https://127.attacker.example/cb"}) {
    EXPECT_EQ(outcome(validate_redirect_uri(good)), "ok") << good;
  }
  for (const char* bad : {"http://127.attacker.example/cb", "http://127.0.0.1.nip.io/cb", "http://127.1/cb",
                          "http://127.0.1/cb", "http://127.0.0.256/cb", "http://127.0.0.01/cb", "http://0127.0.0.1/cb",
                          "http://127.0.0.1./cb", "http://127..0.1/cb", "http://127.0.0.1.5/cb", "http://128.0.0.1/cb",
                          "http://127.0.0.0x1/cb", "http://127.0.0.-1/cb", "http://[::2]/cb", "http://[::ffff:127.0.0.1]/cb",
                          "http://localhost.attacker.example/cb", "http://127.0.0.1:80@evil.example/cb",
                          "http://LOCALHOST.evil/cb"}) {
    EXPECT_EQ(outcome(validate_redirect_uri(bad)), "invalid_input") << bad;
    EXPECT_EQ(outcome(validate_redirect_uri(bad, "post_logout_redirect_uri")), "invalid_input") << bad;
  }
  // A client stored before the rule (written straight into the store) keeps no such URI usable.
  OidcClient old = spec("Old", {"http://127.attacker.example/cb", "http://127.0.0.1/cb"});
  old.post_logout_uris = {"http://127.attacker.example/bye"};
  EXPECT_FALSE(has_redirect_uri(old, "http://127.attacker.example/cb"));
  EXPECT_TRUE(has_redirect_uri(old, "http://127.0.0.1/cb"));
  EXPECT_FALSE(has_post_logout_uri(old, "http://127.attacker.example/bye"));
}

TEST(OidcClients, RedirectUrisMatchExactly) {
  OidcClient client = spec("A", {"https://app.example/cb"});
  EXPECT_TRUE(has_redirect_uri(client, "https://app.example/cb"));
  for (const char* other : {"https://app.example/cb/", "https://app.example/cb?x=1", "https://APP.example/cb",
                            "https://app.example/c", "https://app.example/cb#", "https://app.example:443/cb",
                            "https://app.example.evil/cb", ""}) {
    EXPECT_FALSE(has_redirect_uri(client, other)) << other;
  }
}

TEST(OidcClients, OnlySafeRedirectUrisRegister) {
  for (const char* good : {"https://app.example/cb", "https://app.example:8443/a/b?x=1", "http://localhost:3000/cb",
                           "http://127.0.0.1/cb", "http://[::1]:8080/cb"}) {
    EXPECT_EQ(outcome(validate_redirect_uri(good)), "ok") << good;
  }
  for (const char* bad : {"", "http://app.example/cb", "https://app.example/cb#frag", "javascript:alert(1)",
                          "https://user@app.example/cb", "https://app.example/c b", "//app.example/cb",
                          "https:///cb", "http://localhost.evil.example/cb", "data:text/html,x"}) {
    EXPECT_EQ(outcome(validate_redirect_uri(bad)), "invalid_input") << bad;
  }
  test::TempStore db;
  OidcClients clients(db.store());
  EXPECT_EQ(outcome(clients.add(spec("A", {}), kNow)), "invalid_input");
  auto s = spec("A", {"https://a.example/cb"});
  s.scopes = {"openid", "admin"};
  EXPECT_EQ(outcome(clients.add(s, kNow)), "invalid_input");
  s.scopes = {"profile"};
  EXPECT_EQ(outcome(clients.add(s, kNow)), "invalid_input") << "openid is required";
  EXPECT_EQ(outcome(clients.add(spec("", {"https://a.example/cb"}), kNow)), "invalid_input");
}

}  // namespace
}  // namespace authd
