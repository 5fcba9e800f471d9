// The OpenID Connect client registry (lib/oidc/clients.cpp): secrets shown
// once and kept only hashed, exact redirect URIs, constant-time checks.
#include <gtest/gtest.h>

#include "authd/crypto.hpp"
#include "authd/oidc_clients.hpp"
#include "authd/token.hpp"
#include "test_support.hpp"

namespace authd {
namespace {

constexpr std::int64_t kNow = 1'700'000'000;
const crypto::Sha256Digest kKey = crypto::sha256("the server-side key of the secrets' HMAC");

OidcClient spec(std::string name, std::vector<std::string> uris) {
  OidcClient client;
  client.name = std::move(name);
  client.redirect_uris = std::move(uris);
  return client;
}

TEST(OidcClients, AConfidentialClientGetsASecretStoredOnlyHashed) {
  test::TempStore db;
  OidcClients clients(db.store(), kKey);
  auto issued = clients.add(spec("Wiki", {"https://wiki.example.org/cb"}), kNow);
  ASSERT_TRUE(issued) << issued.error().message;
  EXPECT_TRUE(issued->client.id.starts_with("client_"));
  EXPECT_GE(issued->secret.size(), 40u);
  EXPECT_EQ(issued->client.scopes, (std::vector<std::string>{"openid", "profile", "email", "roles"}));
  auto stored = read_value(db.store(), [&](StoreTxn& txn) { return txn.get_entry("oidc_client", issued->client.id); });
  ASSERT_TRUE(stored && *stored);
  EXPECT_EQ((*stored)->find(issued->secret), std::string::npos) << "the secret itself is never stored";
  const std::string shown = describe_client(issued->client).dump();
  for (const std::string& hidden : {std::string("secret_hmac"), std::string("secret_sha256"), issued->secret}) {
    EXPECT_EQ(shown.find(hidden), std::string::npos) << hidden;
  }

  EXPECT_EQ(outcome(clients.authenticate(issued->client.id, issued->secret)), "ok");
  EXPECT_EQ(outcome(clients.authenticate(issued->client.id, issued->secret + "x")), "invalid_login");
  EXPECT_EQ(outcome(clients.authenticate(issued->client.id, "")), "invalid_login");
  EXPECT_EQ(outcome(clients.authenticate("client_000000000000000000000000", issued->secret)), "invalid_login");
}

TEST(OidcClients, RotatingTheSecretEndsTheOldOne) {
  test::TempStore db;
  OidcClients clients(db.store(), kKey);
  auto issued = clients.add(spec("Wiki", {"https://wiki.example.org/cb"}), kNow);
  ASSERT_TRUE(issued);
  auto rotated = clients.rotate_secret(issued->client.id);
  ASSERT_TRUE(rotated);
  EXPECT_EQ(outcome(clients.authenticate(issued->client.id, issued->secret)), "invalid_login");
  EXPECT_EQ(outcome(clients.authenticate(issued->client.id, rotated->secret)), "ok");
}

TEST(OidcClients, APublicClientHasNoSecretAndCannotAuthenticateWithOne) {
  test::TempStore db;
  OidcClients clients(db.store(), kKey);
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
  OidcClients clients(db.store(), kKey);
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
  OidcClients clients(db.store(), kKey);
  EXPECT_EQ(outcome(clients.add(spec("A", {}), kNow)), "invalid_input");
  auto s = spec("A", {"https://a.example/cb"});
  s.scopes = {"openid", "admin"};
  EXPECT_EQ(outcome(clients.add(s, kNow)), "invalid_input");
  s.scopes = {"profile"};
  EXPECT_EQ(outcome(clients.add(s, kNow)), "invalid_input") << "openid is required";
  EXPECT_EQ(outcome(clients.add(spec("", {"https://a.example/cb"}), kNow)), "invalid_input");
}

std::string stored_entry(test::TempStore& db, const std::string& id) {
  auto stored = read_value(db.store(), [&](StoreTxn& txn) { return txn.get_entry("oidc_client", id); });
  return stored && *stored ? **stored : std::string();
}

// The secret is kept as HMAC-SHA256 under the server key, not as a digest
// anyone holding a copy of the store could test guesses against.
TEST(OidcClients, SecretsAreKeptAsAKeyedHash) {
  test::TempStore db;
  OidcClients clients(db.store(), kKey);
  auto issued = clients.add(spec("Wiki", {"https://wiki.example.org/cb"}), kNow);
  ASSERT_TRUE(issued);
  const std::string entry = stored_entry(db, issued->client.id);
  EXPECT_NE(entry.find("\"secret_hmac\":\"" + crypto::to_hex(crypto::HmacSha256(kKey).mac(issued->secret)) + "\""),
            std::string::npos) << entry;
  EXPECT_EQ(entry.find(crypto::to_hex(crypto::sha256(issued->secret))), std::string::npos);
  EXPECT_EQ(entry.find("secret_sha256"), std::string::npos);
  // Another server key (another site's, or a changed signing key) does not take it.
  OidcClients elsewhere(db.store(), crypto::sha256("another key"));
  EXPECT_EQ(outcome(elsewhere.authenticate(issued->client.id, issued->secret)), "invalid_login");
  EXPECT_EQ(outcome(clients.authenticate(issued->client.id, issued->secret)), "ok");
}

// A client registered before the keyed hash (its secret stored as SHA-256)
// still authenticates, and is rewritten to the HMAC form on that success.
TEST(OidcClients, ALegacySha256SecretStillWorksAndIsRewritten) {
  test::TempStore db;
  OidcClients clients(db.store(), kKey);
  auto issued = clients.add(spec("Old", {"https://old.example/cb"}), kNow);
  ASSERT_TRUE(issued);
  const std::string id = issued->client.id;
  const std::string secret = "an-old-secret-from-before-the-hmac-0123456789";
  const std::string old_entry = "{\"client_id\":\"" + id + "\",\"name\":\"Old\",\"public\":false,\"first_party\":false,"
                                "\"redirect_uris\":[\"https://old.example/cb\"],\"post_logout_redirect_uris\":[],"
                                "\"scopes\":[\"openid\"],\"created_at\":1,\"secret_sha256\":\"" +
                                crypto::to_hex(crypto::sha256(secret)) + "\"}";
  ASSERT_TRUE(db.store().write([&](StoreTxn& txn) { return txn.put_entry("oidc_client", id, old_entry, 0); }));
  EXPECT_EQ(outcome(clients.authenticate(id, secret + "x")), "invalid_login");
  EXPECT_EQ(stored_entry(db, id), old_entry) << "a wrong secret rewrites nothing";
  EXPECT_EQ(outcome(clients.authenticate(id, secret)), "ok");
  const std::string rewritten = stored_entry(db, id);
  EXPECT_EQ(rewritten.find("secret_sha256"), std::string::npos) << rewritten;
  EXPECT_NE(rewritten.find(crypto::to_hex(crypto::HmacSha256(kKey).mac(secret))), std::string::npos) << rewritten;
  EXPECT_EQ(outcome(clients.authenticate(id, secret)), "ok");
  EXPECT_EQ(outcome(clients.authenticate(id, secret + "x")), "invalid_login");
}

TEST(OidcClients, ServiceClientsNeedAConfidentialClientAndARole) {
  test::TempStore db;
  OidcClients clients(db.store(), kKey);
  OidcClient service;
  service.name = "Backup job";
  service.grant_types = {"client_credentials"};
  EXPECT_EQ(outcome(clients.add(service, kNow)), "invalid_input") << "a role is required";
  service.role = Role::writer;
  auto issued = clients.add(service, kNow);
  ASSERT_TRUE(issued) << issued.error().message;
  EXPECT_FALSE(issued->secret.empty());
  EXPECT_TRUE(issued->client.redirect_uris.empty());
  EXPECT_TRUE(issued->client.scopes.empty());
  EXPECT_FALSE(has_grant(issued->client, kAuthorizationCodeGrant));
  const auto shown = describe_client(*clients.find(issued->client.id)).dump();
  EXPECT_NE(shown.find("\"grant_types\":[\"client_credentials\"]"), std::string::npos) << shown;
  EXPECT_NE(shown.find("\"role\":\"writer\""), std::string::npos) << shown;

  auto user = service_user(*clients.find(issued->client.id));
  ASSERT_TRUE(user);
  EXPECT_EQ((*user)->username, std::string(kServiceSubjectPrefix) + issued->client.id);
  EXPECT_EQ((*user)->id, (*user)->username);
  EXPECT_EQ((*user)->role, Role::writer);

  auto public_service = service;
  public_service.is_public = true;
  EXPECT_EQ(outcome(clients.add(public_service, kNow)), "invalid_input");
  auto unknown = service;
  unknown.grant_types = {"password"};
  EXPECT_EQ(outcome(clients.add(unknown, kNow)), "invalid_input");
  auto role_only = spec("Web", {"https://web.example/cb"});
  role_only.role = Role::admin;
  EXPECT_EQ(outcome(clients.add(role_only, kNow)), "invalid_input") << "a role without the grant";
  // A code-flow client is no service.
  auto web = clients.add(spec("Web", {"https://web.example/cb"}), kNow);
  ASSERT_TRUE(web);
  EXPECT_EQ(outcome(service_user(web->client)), "invalid_token");
}

TEST(OidcClients, APrivateKeyJwtClientHasNoSecret) {
  test::TempStore db;
  OidcClients clients(db.store(), kKey);
  auto s = spec("Signer", {"https://signer.example/cb"});
  s.jwks_uri = "http://signer.example/jwks";
  EXPECT_EQ(outcome(clients.add(s, kNow)), "invalid_input") << "http only to loopback";
  s.jwks_uri = "https://signer.example/jwks";
  auto issued = clients.add(s, kNow);
  ASSERT_TRUE(issued) << issued.error().message;
  EXPECT_TRUE(issued->secret.empty());
  EXPECT_EQ(auth_method(issued->client), "private_key_jwt");
  EXPECT_EQ(outcome(clients.authenticate(issued->client.id, "")), "invalid_login");
  EXPECT_EQ(outcome(clients.rotate_secret(issued->client.id)), "invalid_input");
  auto inline_keys = spec("Signer", {"https://signer.example/cb"});
  inline_keys.jwks = R"({"keys":[{"kty":"oct","k":"c2VjcmV0"}]})";
  EXPECT_EQ(outcome(clients.add(inline_keys, kNow)), "invalid_input") << "a symmetric key is no public key";
  inline_keys.jwks = "not json";
  EXPECT_EQ(outcome(clients.add(inline_keys, kNow)), "invalid_input");
}

}  // namespace
}  // namespace authd
