// Public-key tokens: KeyPair (Ed25519, P-256), the KeyRing in a directory
// shared by processes (rotation, retirement, 0600 files), and TokenService
// with a ring: kid, algorithm pinning, retired keys refused even when cached.
#include "authd/key_ring.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <optional>
#include <string>

#include "authd/crypto.hpp"
#include "authd/jws.hpp"
#include "authd/key_pair.hpp"
#include "authd/token.hpp"
#include "fixtures.hpp"
#include "test_support.hpp"

namespace authd {
namespace {

using crypto::KeyAlgorithm;
using crypto::KeyPair;
constexpr std::int64_t kNow = 1'700'000'000;

class KeyPairTest : public ::testing::TestWithParam<KeyAlgorithm> {};

TEST_P(KeyPairTest, SignVerifyPemAndJwk) {
  auto key = KeyPair::generate(GetParam());
  ASSERT_TRUE(key);
  const auto signature = key->sign("header.payload");
  EXPECT_EQ(signature.size(), 64u);
  EXPECT_TRUE(key->verify("header.payload", signature));
  EXPECT_FALSE(key->verify("header.payloaD", signature));
  std::string bad = signature;
  bad[5] ^= 1;
  EXPECT_FALSE(key->verify("header.payload", bad));
  auto again = KeyPair::from_pem(key->private_pem());
  ASSERT_TRUE(again);
  EXPECT_EQ(again->algorithm(), GetParam());
  EXPECT_TRUE(again->verify("header.payload", signature));
  const auto jwk = key->public_jwk();
  EXPECT_EQ(jwk.kty, GetParam() == KeyAlgorithm::ed25519 ? "OKP" : "EC");
  EXPECT_EQ(crypto::base64url_decode(jwk.x)->size(), 32u);
  if (GetParam() == KeyAlgorithm::es256) {
    // ES256 and the OAuth code's PublicKey agree on r||s.
    auto pub = crypto::PublicKey::ec_p256(jwk.x, jwk.y);
    ASSERT_TRUE(pub);
    EXPECT_TRUE(pub->verify("header.payload", signature));
  }
}

INSTANTIATE_TEST_SUITE_P(Both, KeyPairTest, ::testing::Values(KeyAlgorithm::ed25519, KeyAlgorithm::es256));

// RS256 (OpenID Connect's mandatory ID-token algorithm): a 2048-bit key, a
// modulus-sized PKCS#1 v1.5 signature that the OAuth consumer's independent
// RSA verifier (PublicKey::rsa, from the JWK's n and e) accepts.
TEST(KeyPair, Rs256SignsVerifiesAndPublishesNAndE) {
  auto key = KeyPair::generate(KeyAlgorithm::rs256);
  ASSERT_TRUE(key);
  EXPECT_EQ(crypto::jws_algorithm(KeyAlgorithm::rs256), "RS256");
  const auto signature = key->sign("header.payload");
  EXPECT_EQ(signature.size(), 256u);
  EXPECT_TRUE(key->verify("header.payload", signature));
  EXPECT_FALSE(key->verify("header.payloaD", signature));
  EXPECT_FALSE(key->verify("header.payload", signature.substr(1)));
  auto again = KeyPair::from_pem(key->private_pem());
  ASSERT_TRUE(again);
  EXPECT_EQ(again->algorithm(), KeyAlgorithm::rs256);
  const auto jwk = key->public_jwk();
  EXPECT_EQ(jwk.kty, "RSA");
  EXPECT_EQ(jwk.e, "AQAB");
  EXPECT_EQ(crypto::base64url_decode(jwk.n)->size(), 256u);
  auto pub = crypto::PublicKey::rsa(jwk.n, jwk.e);
  ASSERT_TRUE(pub);
  EXPECT_TRUE(pub->verify("header.payload", signature));
  EXPECT_FALSE(pub->verify("header.payloaD", signature));
}

TEST(KeyRing, AnRs256RingKeepsItsKeysApartFromAnotherAlgorithmsInTheStore) {
  test::TempStore db;
  auto rsa = KeyRing::open(store_key_storage(db.store(), "id_token_signing"), KeyAlgorithm::rs256);
  auto ed = KeyRing::open(store_key_storage(db.store()), KeyAlgorithm::ed25519);
  ASSERT_TRUE(rsa && ed);
  const auto rsa_keys = (*rsa)->keys(KeyRing::Check::always, kNow);
  const auto ed_keys = (*ed)->keys(KeyRing::Check::always, kNow);
  ASSERT_EQ(rsa_keys->by_kid.size(), 1u);
  ASSERT_EQ(ed_keys->by_kid.size(), 1u);
  EXPECT_EQ(rsa_keys->by_kid.begin()->second.algorithm(), KeyAlgorithm::rs256);
  EXPECT_NE(rsa_keys->current, ed_keys->current);
  // A second opening of the same prefix finds the same key, not a new one.
  auto again = KeyRing::open(store_key_storage(db.store(), "id_token_signing"), KeyAlgorithm::rs256);
  ASSERT_TRUE(again);
  EXPECT_EQ((*again)->keys(KeyRing::Check::always, kNow)->current, rsa_keys->current);
}

TEST(KeyPair, GarbagePemIsRefused) { EXPECT_EQ(outcome(KeyPair::from_pem("nope")), "invalid_input"); }

TEST(KeyRing, FirstOpenMakesAPrivateKeyRotateAndRetire) {
  test::TempDir dir;
  const auto keys_dir = dir.path() / "keys";
  auto ring = KeyRing::open(keys_dir, KeyAlgorithm::ed25519);
  ASSERT_TRUE(ring) << ring.error().message;
  auto keys = (*ring)->keys(KeyRing::Check::always, kNow);
  ASSERT_EQ(keys->by_kid.size(), 1u);
  const std::string first = keys->current;
  struct stat info{};
  ASSERT_EQ(::stat((keys_dir / (first + ".pem")).c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
  ASSERT_EQ(::stat(keys_dir.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0700u);

  // Another process rotates: this one sees it on the next `always` check.
  auto second = KeyRing::rotate(keys_dir, KeyAlgorithm::ed25519);
  ASSERT_TRUE(second);
  keys = (*ring)->keys(KeyRing::Check::always, kNow);
  EXPECT_EQ(keys->current, *second);
  EXPECT_EQ(keys->by_kid.size(), 2u);
  EXPECT_EQ(outcome(KeyRing::retire(keys_dir, *second)), "invalid_input") << "never the current key";
  auto retired = KeyRing::retire(keys_dir, "");
  ASSERT_TRUE(retired);
  EXPECT_EQ(*retired, std::vector<std::string>{first});
  keys = (*ring)->keys(KeyRing::Check::always, kNow);
  EXPECT_EQ(keys->by_kid.size(), 1u);
  EXPECT_FALSE(keys->by_kid.contains(first));
}

TEST(KeyRing, KeysOfAnotherAlgorithmAreIgnored) {
  test::TempDir dir;
  ASSERT_TRUE(KeyRing::rotate(dir.path(), KeyAlgorithm::es256));
  auto ring = KeyRing::open(dir.path(), KeyAlgorithm::ed25519);
  ASSERT_TRUE(ring);
  auto keys = (*ring)->keys(KeyRing::Check::always, kNow);
  ASSERT_EQ(keys->by_kid.size(), 1u) << "the P-256 key never signs or verifies EdDSA";
  EXPECT_EQ(keys->by_kid.begin()->second.algorithm(), KeyAlgorithm::ed25519);
}

using test::RingTokens;

std::string header_of(const std::string& token) {
  return *crypto::base64url_decode(jws::split(token)->header);
}

TEST(PublicKeyTokens, KidAndAlgorithmAreWrittenAndPinned) {
  RingTokens t(TokenAlgorithm::eddsa);
  const auto token = t.tokens->issue(kAccessTokenType, "id1", "alice", kNow);
  const auto kid = t.ring->keys(KeyRing::Check::always, kNow)->current;
  EXPECT_EQ(header_of(token), R"({"alg":"EdDSA","typ":"at+jwt","kid":")" + kid + "\"}");
  EXPECT_EQ(outcome(t.tokens->verify(token, kAccessTokenType, kNow)), "ok");
  EXPECT_EQ(outcome(t.tokens->verify(token, kOAuthStateTokenType, kNow)), "invalid_token");
  // An HS256 token (even one made with the very same secret) is refused.
  auto hs = *TokenService::create(SigningKey(std::string(32, 'k')), TokenPolicy{});
  EXPECT_EQ(outcome(t.tokens->verify(hs.issue(kAccessTokenType, "id1", "alice", kNow), kAccessTokenType, kNow)),
            "invalid_token");
  // ... and the reverse: the HS256 service refuses the EdDSA token.
  EXPECT_EQ(outcome(hs.verify(token, kAccessTokenType, kNow)), "invalid_token");
  const auto jwks = Json::parse(*t.tokens->jwks());
  ASSERT_TRUE(jwks);
  EXPECT_EQ(jwks->get("keys").size(), 1u);
  EXPECT_FALSE(hs.jwks());
}

TEST(PublicKeyTokens, RotationAndRetirementEvenWithTheCache) {
  RingTokens t(TokenAlgorithm::es256);
  const auto old_token = t.tokens->issue(kAccessTokenType, "id1", "alice", kNow);
  ASSERT_EQ(outcome(t.tokens->verify(old_token, kAccessTokenType, kNow)), "ok");  // now cached
  auto next = KeyRing::rotate(t.dir.path(), KeyAlgorithm::es256);
  ASSERT_TRUE(next);
  const auto new_token = t.tokens->issue(kAccessTokenType, "id1", "alice", kNow);
  EXPECT_NE(header_of(new_token).find(*next), std::string::npos) << "new tokens use the new key at once";
  EXPECT_EQ(outcome(t.tokens->verify(old_token, kAccessTokenType, kNow + 1)), "ok");
  ASSERT_TRUE(KeyRing::retire(t.dir.path(), ""));
  EXPECT_EQ(outcome(t.tokens->verify(old_token, kAccessTokenType, kNow + 2)), "invalid_token")
      << "a retired key's token fails, cached or not";
  EXPECT_EQ(outcome(t.tokens->verify(new_token, kAccessTokenType, kNow + 2)), "ok");
}

TEST(PublicKeyTokens, ServiceAndRingMustAgree) {
  TokenPolicy policy;
  policy.algorithm = TokenAlgorithm::eddsa;
  EXPECT_EQ(outcome(TokenService::create(SigningKey(std::string(32, 'k')), policy)), "config");
}

}  // namespace
}  // namespace authd
