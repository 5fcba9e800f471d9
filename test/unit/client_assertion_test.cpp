// private_key_jwt (RFC 7523 §3): lib/jose's strict client-assertion checks
// and lib/oidc's jti replay cache.
#include <gtest/gtest.h>

#include "authd/client_assertion.hpp"
#include "authd/client_assertions.hpp"
#include "authd/clock.hpp"
#include "authd/crypto.hpp"
#include "authd/json.hpp"
#include "authd/key_pair.hpp"
#include "test_support.hpp"

namespace authd {
namespace {

constexpr std::int64_t kNow = 1'700'000'000;
const std::string kTokenEndpoint = "https://id.example/token";

std::string b64u(std::string_view text) { return crypto::base64url_encode(text); }

Json jwk_of(const crypto::KeyPair& key, std::string_view kid) {
  const auto pub = key.public_jwk();
  Json jwk = Json::object();
  jwk.set("kty", Json::string(pub.kty)).set("kid", Json::string(kid));
  if (pub.kty == "RSA") {
    jwk.set("n", Json::string(pub.n)).set("e", Json::string(pub.e));
  } else {
    jwk.set("crv", Json::string(pub.crv)).set("x", Json::string(pub.x));
    if (!pub.y.empty()) jwk.set("y", Json::string(pub.y));
  }
  return jwk;
}

std::string jwks_of(std::initializer_list<Json> keys) {
  Json set = Json::object();
  Json list = Json::array();
  for (const auto& key : keys) list.append(key);
  set.set("keys", list);
  return set.dump();
}

struct Claims {
  std::string iss = "client_0123456789abcdef01234567";
  std::string sub = "client_0123456789abcdef01234567";
  std::string aud = kTokenEndpoint;
  std::string jti = "jti-1";
  std::optional<std::int64_t> exp = kNow + 60;
  std::optional<std::int64_t> iat = kNow;
};

std::string assertion(const crypto::KeyPair& key, std::string_view kid, const Claims& c, std::string alg = {}) {
  Json header = Json::object();
  header.set("alg", Json::string(alg.empty() ? std::string(crypto::jws_algorithm(key.algorithm())) : alg))
      .set("kid", Json::string(kid));
  Json payload = Json::object();
  payload.set("iss", Json::string(c.iss)).set("sub", Json::string(c.sub)).set("aud", Json::string(c.aud));
  if (!c.jti.empty()) payload.set("jti", Json::string(c.jti));
  if (c.exp) payload.set("exp", Json::integer(*c.exp));
  if (c.iat) payload.set("iat", Json::integer(*c.iat));
  const std::string input = b64u(header.dump()) + "." + b64u(payload.dump());
  return input + "." + b64u(key.sign(input));
}

jose::ClientAssertionChecks checks() {
  return {.client_id = "client_0123456789abcdef01234567", .audiences = {kTokenEndpoint, "https://id.example"},
          .now = kNow};
}

TEST(ClientAssertion, EachAllowedAlgorithmVerifies) {
  for (const auto algorithm : {crypto::KeyAlgorithm::rs256, crypto::KeyAlgorithm::es256, crypto::KeyAlgorithm::ed25519}) {
    auto key = crypto::KeyPair::generate(algorithm);
    ASSERT_TRUE(key);
    auto keys = jose::ClientKeys::parse(jwks_of({jwk_of(*key, "k1")}));
    ASSERT_TRUE(keys) << keys.error().message;
    auto verified = jose::verify_client_assertion(assertion(*key, "k1", {}), *keys, checks());
    ASSERT_TRUE(verified) << crypto::jws_algorithm(algorithm) << ": " << verified.error().message;
    EXPECT_EQ(verified->jti, "jti-1");
    EXPECT_EQ(verified->expires_at, kNow + 60);
    if (algorithm == crypto::KeyAlgorithm::ed25519) {  // RFC 9864's name, as openid-client writes it
      EXPECT_EQ(outcome(jose::verify_client_assertion(assertion(*key, "k1", {}, "Ed25519"), *keys, checks())), "ok");
    }
  }
}

// Attacks: alg none, an HMAC keyed with the public key, a foreign key, a
// token for another audience or client, a long-lived or expired one, no jti.
TEST(ClientAssertion, EverythingElseIsRefused) {
  auto key = crypto::KeyPair::generate(crypto::KeyAlgorithm::es256);
  auto other = crypto::KeyPair::generate(crypto::KeyAlgorithm::es256);
  ASSERT_TRUE(key && other);
  auto keys = jose::ClientKeys::parse(jwks_of({jwk_of(*key, "k1")}));
  ASSERT_TRUE(keys);
  auto refused = [&](const std::string& token) { return outcome(jose::verify_client_assertion(token, *keys, checks())); };

  const std::string good = assertion(*key, "k1", {});
  const auto dot = good.rfind('.');
  Json none_header = Json::object();
  none_header.set("alg", Json::string("none"));
  EXPECT_EQ(refused(b64u(none_header.dump()) + good.substr(good.find('.'), dot - good.find('.')) + "."), "invalid_token");
  EXPECT_EQ(refused(assertion(*key, "k1", {}, "HS256")), "invalid_token");
  EXPECT_EQ(refused(assertion(*other, "k1", {})), "invalid_token") << "signed by a key not in the client's JWKS";
  EXPECT_EQ(refused(assertion(*other, "k2", {})), "not_found") << "a kid the JWKS does not have";
  EXPECT_EQ(refused(good.substr(0, dot) + "." + b64u(std::string(64, 'x'))), "invalid_token");
  Claims c;
  c.aud = "https://elsewhere.example/token";
  EXPECT_EQ(refused(assertion(*key, "k1", c)), "invalid_token");
  c = {};
  c.sub = "client_ffffffffffffffffffffffff";
  EXPECT_EQ(refused(assertion(*key, "k1", c)), "invalid_token") << "iss differs from sub";
  c.iss = c.sub;
  EXPECT_EQ(refused(assertion(*key, "k1", c)), "invalid_token") << "another client";
  c = {};
  c.exp = kNow - 31;
  EXPECT_EQ(refused(assertion(*key, "k1", c)), "invalid_token") << "expired";
  c.exp = std::nullopt;
  EXPECT_EQ(refused(assertion(*key, "k1", c)), "invalid_token") << "exp is required";
  c.exp = kNow + 3600;
  EXPECT_EQ(refused(assertion(*key, "k1", c)), "invalid_token") << "too long-lived";
  c = {};
  c.iat = kNow + 600;
  EXPECT_EQ(refused(assertion(*key, "k1", c)), "invalid_token") << "iat in the future";
  c = {};
  c.jti.clear();
  EXPECT_EQ(refused(assertion(*key, "k1", c)), "invalid_token") << "jti is required";
  EXPECT_EQ(refused(std::string(9000, 'a')), "invalid_token");
  EXPECT_EQ(refused("a.b"), "invalid_token");
}

TEST(ClientAssertion, AJwksMustHoldPublicSigningKeysOnly) {
  auto key = crypto::KeyPair::generate(crypto::KeyAlgorithm::ed25519);
  ASSERT_TRUE(key);
  Json with_private = jwk_of(*key, "k1");
  with_private.set("d", Json::string("AAAA"));
  EXPECT_EQ(outcome(jose::ClientKeys::parse(jwks_of({with_private}))), "invalid_input");
  EXPECT_EQ(outcome(jose::ClientKeys::parse(R"({"keys":[{"kty":"oct","k":"AAAA"}]})")), "invalid_input");
  EXPECT_EQ(outcome(jose::ClientKeys::parse(R"({"keys":[]})")), "invalid_input");
  EXPECT_EQ(outcome(jose::ClientKeys::parse("[]")), "invalid_input");
  Json encryption = jwk_of(*key, "k1");
  encryption.set("use", Json::string("enc"));
  EXPECT_EQ(outcome(jose::ClientKeys::parse(jwks_of({encryption}))), "invalid_input");
}

// Attack: an assertion captured once (a log, a proxy) sent again.
TEST(ClientAssertion, AJtiIsAcceptedOnce) {
  test::TempStore db;
  OidcClients clients(db.store(), crypto::sha256("key"));
  auto key = crypto::KeyPair::generate(crypto::KeyAlgorithm::rs256);
  ASSERT_TRUE(key);
  OidcClient spec;
  spec.name = "Signer";
  spec.grant_types = {"client_credentials"};
  spec.role = Role::user;
  spec.jwks = jwks_of({jwk_of(*key, "k1")});
  auto issued = clients.add(spec, kNow);
  ASSERT_TRUE(issued) << issued.error().message;
  EXPECT_TRUE(issued->secret.empty());
  ClientAssertions assertions(db.store(), clients);
  Claims c;
  c.iss = c.sub = issued->client.id;
  const auto now = unix_now();
  c.exp = now + 60;
  c.iat = now;
  const std::string token = assertion(*key, "k1", c);
  const std::vector<std::string> audiences{kTokenEndpoint};
  auto first = assertions.authenticate(token, issued->client.id, audiences, now);
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_EQ(first->id, issued->client.id);
  EXPECT_EQ(outcome(assertions.authenticate(token, "", audiences, now)), "invalid_login") << "a replay";
  c.jti = "jti-2";
  EXPECT_EQ(outcome(assertions.authenticate(assertion(*key, "k1", c), "client_ffffffffffffffffffffffff", audiences, now)),
            "invalid_login") << "client_id differs from sub";
  EXPECT_EQ(outcome(assertions.authenticate(assertion(*key, "k1", c), "", audiences, now)), "ok");
}

}  // namespace
}  // namespace authd
