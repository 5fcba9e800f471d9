// authd as OpenID provider, the lib/ parts: ID tokens (lib/oidc/id_token.cpp)
// signed RS256 and checked as an id_token_hint, consents
// (lib/oidc/consents.cpp) kept hashed, and refresh families bound to the
// client they were issued to (lib/accounts/refresh.cpp).
#include <gtest/gtest.h>

#include "authd/backchannel_logout.hpp"
#include "authd/crypto.hpp"
#include "authd/id_token.hpp"
#include "authd/jws.hpp"
#include "authd/key_storage.hpp"
#include "authd/oidc_consents.hpp"
#include "authd/refresh.hpp"
#include "test_support.hpp"

namespace authd {
namespace {

constexpr std::int64_t kNow = 1'700'000'000;

TEST(IdToken, Rs256WithTheClaimsOfOpenIdConnectCore) {
  test::TempStore db;
  auto ring = KeyRing::open(store_key_storage(db.store(), "id_token_signing"), crypto::KeyAlgorithm::rs256);
  ASSERT_TRUE(ring);
  auto token = sign_id_token(**ring,
                             {.issuer = "https://id.example", .subject = "u1", .audience = "client_1",
                              .nonce = "n1", .amr = "pwd otp", .auth_time = kNow - 10, .access_token = "at"},
                             kNow);
  ASSERT_TRUE(token) << token.error().message;
  const auto parts = jws::split(*token);
  ASSERT_TRUE(parts);
  auto header = jws::decode_object(parts->header, "header", 4);
  auto payload = jws::decode_object(parts->payload, "payload", 4);
  ASSERT_TRUE(header && payload);
  EXPECT_EQ(header->get_string("alg"), "RS256");
  EXPECT_TRUE(header->has("kid"));
  EXPECT_EQ(payload->get_string("iss"), "https://id.example");
  EXPECT_EQ(payload->get_string("aud"), "client_1");
  EXPECT_EQ(payload->get_string("nonce"), "n1");
  EXPECT_EQ(payload->get_string("acr"), "2");
  EXPECT_EQ(payload->get("amr").size(), 2u);
  EXPECT_EQ(payload->get_integer("auth_time"), kNow - 10);
  EXPECT_EQ(payload->get_integer("exp"), kNow + kIdTokenTtl);
  EXPECT_EQ(payload->get_string("at_hash"), at_hash("at"));

  auto hint = verify_id_token_hint(**ring, *token, "https://id.example", kNow + 100000);
  ASSERT_TRUE(hint) << "an expired hint still names the user";
  EXPECT_EQ(hint->get_string("sub"), "u1");
  EXPECT_FALSE(verify_id_token_hint(**ring, *token, "https://other.example", kNow));
  std::string tampered = *token;
  tampered[tampered.size() / 2] = tampered[tampered.size() / 2] == 'A' ? 'B' : 'A';
  EXPECT_FALSE(verify_id_token_hint(**ring, tampered, "https://id.example", kNow));
}

TEST(IdToken, CarriesTheSessionsSid) {
  test::TempStore db;
  auto ring = KeyRing::open(store_key_storage(db.store(), "id_token_signing"), crypto::KeyAlgorithm::rs256);
  ASSERT_TRUE(ring);
  auto token = sign_id_token(**ring, {.issuer = "i", .subject = "u1", .audience = "c", .nonce = {}, .amr = {}, .auth_time = 0, .access_token = {}, .sid = session_id_of("family")}, kNow);
  ASSERT_TRUE(token);
  auto payload = jws::decode_object(jws::split(*token)->payload, "payload", 4);
  ASSERT_TRUE(payload);
  EXPECT_EQ(payload->get_string("sid"), session_id_of("family"));
  EXPECT_EQ(22u, session_id_of("family").size()) << "16 bytes, base64url";
  EXPECT_NE(session_id_of("family"), session_id_of("other"));
  EXPECT_EQ(std::string::npos, session_id_of("family").find("family")) << "no handle of authd's own";
}

TEST(LogoutToken, BackChannelLogoutClaimsTypAndNoNonce) {
  test::TempStore db;
  auto ring = KeyRing::open(store_key_storage(db.store(), "id_token_signing"), crypto::KeyAlgorithm::rs256);
  ASSERT_TRUE(ring);
  const LogoutToken logout{.issuer = "https://id.example", .audience = "client_1", .subject = "u1", .sid = "s1", .jti = {}};
  auto token = sign_logout_token(**ring, logout, kNow);
  auto again = sign_logout_token(**ring, logout, kNow);
  ASSERT_TRUE(token && again);
  const auto parts = jws::split(*token);
  ASSERT_TRUE(parts);
  auto header = jws::decode_object(parts->header, "header", 4);
  auto payload = jws::decode_object(parts->payload, "payload", 4);
  ASSERT_TRUE(header && payload);
  EXPECT_EQ(header->get_string("typ"), "logout+jwt");
  EXPECT_EQ(header->get_string("alg"), "RS256");
  EXPECT_EQ(payload->get_string("iss"), "https://id.example");
  EXPECT_EQ(payload->get_string("aud"), "client_1");
  EXPECT_EQ(payload->get_string("sub"), "u1");
  EXPECT_EQ(payload->get_string("sid"), "s1");
  EXPECT_EQ(payload->get_integer("iat"), kNow);
  EXPECT_EQ(payload->get_integer("exp"), kNow + kLogoutTokenTtl);
  EXPECT_TRUE(payload->get("events").get(kBackchannelLogoutEvent).is_object());
  EXPECT_FALSE(payload->has("nonce"));
  EXPECT_GE(payload->get_string("jti").value_or("").size(), 16u);
  auto other = jws::decode_object(jws::split(*again)->payload, "payload", 4);
  EXPECT_NE(payload->get_string("jti"), other->get_string("jti")) << "a new jti for every token signed";
  // Signed by the ID-token key: it verifies as a hint does (signature, kid, alg, iss).
  EXPECT_TRUE(verify_id_token_hint(**ring, *token, "https://id.example", kNow));
}

// A claim that is not UTF-8 cannot be JSON text: the token is refused, not
// signed without that claim (found by fuzz_id_token_hint: an audience with a
// stray byte gave a token with no aud).
TEST(IdToken, AClaimThatIsNotUtf8IsRefusedNotDropped) {
  test::TempStore db;
  auto ring = KeyRing::open(store_key_storage(db.store(), "id_token_signing"), crypto::KeyAlgorithm::ed25519);
  ASSERT_TRUE(ring);
  IdToken token{.issuer = "i", .subject = "u1", .audience = "c", .nonce = "n", .amr = "pwd", .auth_time = 0,
                .access_token = {}, .sid = {}};
  ASSERT_TRUE(sign_id_token(**ring, token, kNow));
  for (std::string IdToken::*field : {&IdToken::subject, &IdToken::audience, &IdToken::nonce, &IdToken::sid}) {
    IdToken bad = token;
    bad.*field = std::string("cli") + static_cast<char>(0x81) + "ent";
    auto refused = sign_id_token(**ring, bad, kNow);
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().code, Errc::invalid_input);
  }
}

TEST(IdToken, AtHashIsTheLeftHalfOfSha256) {
  // OpenID Connect Core §3.1.3.6; 16 bytes -> 22 base64url characters.
  EXPECT_EQ(at_hash("jHkWEdUXMU1BwAsC4vtUsZwnNFfWi8dZ4ZZyKSLc3jY").size(), 22u);
  EXPECT_EQ(acr_of("pwd"), "1");
  EXPECT_EQ(acr_of("fed hwk"), "2");
}

TEST(OidcConsents, RememberedPerUserAndClientHashedAndExpiring) {
  test::TempStore db;
  OidcConsents consents(db.store());
  EXPECT_EQ(consents.covers("u1", "c1", "openid profile", kNow), false);
  ASSERT_TRUE(consents.grant("u1", "c1", "openid profile", kNow));
  EXPECT_EQ(consents.covers("u1", "c1", "openid", kNow + 1), true);
  EXPECT_EQ(consents.covers("u1", "c1", "openid email", kNow + 1), false) << "a new scope asks again";
  EXPECT_EQ(consents.covers("u2", "c1", "openid", kNow + 1), false);
  EXPECT_EQ(consents.covers("u1", "c2", "openid", kNow + 1), false);
  EXPECT_EQ(consents.covers("u1", "c1", "openid", kNow + kConsentTtl + 1), false) << "expired";
  auto stored = read_value(db.store(), [](StoreTxn& txn) { return txn.list_entries("oidc_consent"); });
  ASSERT_TRUE(stored);
  ASSERT_EQ(stored->size(), 1u);
  EXPECT_EQ(stored->front().first.find("c1"), std::string::npos) << "the key is a hash";
  ASSERT_TRUE(consents.revoke("u1", "c1"));
  EXPECT_EQ(consents.covers("u1", "c1", "openid", kNow + 1), false);
}

TEST(RefreshTokens, AClientsFamilyRotatesOnlyForThatClient) {
  test::TempStore db;
  const User alice = test::insert_user(db.store(), "alice");
  RefreshTokens refresh(db.store(), RefreshPolicy{std::chrono::seconds(600)});
  auto first = refresh.start(alice, kNow, "pwd", "client_a", "openid offline_access");
  ASSERT_TRUE(first);
  EXPECT_FALSE(refresh.rotate(first->refresh_token, kNow + 1)) << "not at authd's own /token/refresh";
  EXPECT_FALSE(refresh.rotate(first->refresh_token, kNow + 1, "client_b")) << "not for another client";
  auto next = refresh.rotate(first->refresh_token, kNow + 1, "client_a");
  ASSERT_TRUE(next) << next.error().message;
  EXPECT_EQ(next->scope, "openid offline_access");
  EXPECT_EQ(next->amr, "pwd");
  auto own = refresh.start(alice, kNow, "pwd");
  ASSERT_TRUE(own);
  EXPECT_FALSE(refresh.rotate(own->refresh_token, kNow + 1, "client_a")) << "authd's own family at /token";
  EXPECT_TRUE(refresh.rotate(own->refresh_token, kNow + 1));
}

// A family started by a code exchange hands on the user's sign-in time (the
// code's auth_time), not the exchange's, through every rotation; the stored
// entry holds no usable token.
TEST(RefreshTokens, AFamilyFromACodeKeepsTheSignInTime) {
  test::TempStore db;
  const User alice = test::insert_user(db.store(), "alice");
  RefreshTokens refresh(db.store(), RefreshPolicy{std::chrono::seconds(600)});
  const std::int64_t signed_in = kNow - 500;
  auto first = refresh.start(alice, kNow, "pwd", "client_a", "openid offline_access", signed_in);
  ASSERT_TRUE(first);
  auto stored = read_value(db.store(), [&](StoreTxn& txn) { return txn.list_entries("refresh:" + alice.id); });
  ASSERT_TRUE(stored);
  ASSERT_EQ(stored->size(), 1u);
  const auto secret = first->refresh_token.substr(first->refresh_token.rfind('.') + 1);
  EXPECT_EQ(stored->front().second.find(secret), std::string::npos) << "only the secret's hash is kept";
  std::string token = first->refresh_token;
  for (int i = 1; i <= 3; ++i) {
    auto next = refresh.rotate(token, kNow + i * 100, "client_a");
    ASSERT_TRUE(next) << next.error().message;
    EXPECT_EQ(next->authenticated_at, signed_in) << "rotation " << i;
    EXPECT_EQ(next->scope, "openid offline_access");
    token = next->refresh_token;
  }
  // A sign-in time "after" the start (a clock step) is taken as the start.
  auto own = refresh.start(alice, kNow, "pwd", {}, {}, kNow + 50);
  ASSERT_TRUE(own);
  auto next = refresh.rotate(own->refresh_token, kNow + 1);
  ASSERT_TRUE(next);
  EXPECT_EQ(next->authenticated_at, kNow);
}


// Introspection (RFC 7662) reads a family without changing it: only its
// current token is active, until it expires or its user goes.
TEST(RefreshTokens, InspectReadsOnlyTheCurrentTokenAndChangesNothing) {
  test::TempStore db;
  const User alice = test::insert_user(db.store(), "alice");
  RefreshTokens refresh(db.store(), RefreshPolicy{std::chrono::seconds(600)});
  auto first = refresh.start(alice, kNow, "pwd", "client_a", "openid offline_access");
  ASSERT_TRUE(first);
  auto info = refresh.inspect(first->refresh_token, kNow + 1);
  ASSERT_TRUE(info) << info.error().message;
  EXPECT_EQ(info->client_id, "client_a");
  EXPECT_EQ(info->scope, "openid offline_access");
  EXPECT_EQ(info->user.id, alice.id);
  EXPECT_EQ(info->started_at, kNow);
  EXPECT_EQ(info->expires_at, kNow + 600);
  EXPECT_TRUE(refresh.inspect(first->refresh_token, kNow + 2)) << "inspecting twice is no reuse";
  auto next = refresh.rotate(first->refresh_token, kNow + 3, "client_a");
  ASSERT_TRUE(next) << "inspection rotated nothing: " << next.error().message;
  EXPECT_FALSE(refresh.inspect(first->refresh_token, kNow + 4)) << "a used secret";
  EXPECT_TRUE(refresh.inspect(next->refresh_token, kNow + 4)) << "inspecting a used secret ended nothing";
  EXPECT_FALSE(refresh.inspect(next->refresh_token, kNow + 3 + 600)) << "expired";
  EXPECT_FALSE(refresh.inspect("garbage", kNow));
  EXPECT_FALSE(refresh.inspect(alice.id + "." + std::string(32, 'a') + ".x", kNow)) << "unknown family";
  ASSERT_TRUE(db.store().write([](StoreTxn& txn) { return txn.delete_user("alice"); }));
  EXPECT_FALSE(refresh.inspect(next->refresh_token, kNow + 5)) << "the user is gone";
}

// Revocation (RFC 7009) ends a family only for the client it belongs to, by
// any of its tokens.
TEST(RefreshTokens, RevokeForClientEndsOnlyThatClientsFamily) {
  test::TempStore db;
  const User alice = test::insert_user(db.store(), "alice");
  RefreshTokens refresh(db.store(), RefreshPolicy{std::chrono::seconds(600)});
  auto first = refresh.start(alice, kNow, "pwd", "client_a", "openid offline_access");
  ASSERT_TRUE(first);
  auto next = refresh.rotate(first->refresh_token, kNow + 1, "client_a");
  ASSERT_TRUE(next);
  EXPECT_EQ(refresh.revoke_for_client(next->refresh_token, "client_b"), false) << "another client's";
  EXPECT_EQ(refresh.revoke_for_client(next->refresh_token, ""), false);
  EXPECT_EQ(refresh.revoke_for_client("garbage", "client_a"), false);
  EXPECT_TRUE(refresh.inspect(next->refresh_token, kNow + 2)) << "still alive";
  EXPECT_EQ(refresh.revoke_for_client(first->refresh_token, "client_a"), true) << "an older member ends the family";
  EXPECT_FALSE(refresh.inspect(next->refresh_token, kNow + 2));
  EXPECT_FALSE(refresh.rotate(next->refresh_token, kNow + 2, "client_a"));
  EXPECT_EQ(refresh.revoke_for_client(next->refresh_token, "client_a"), false) << "nothing left";
  auto own = refresh.start(alice, kNow, "pwd");
  ASSERT_TRUE(own);
  EXPECT_EQ(refresh.revoke_for_client(own->refresh_token, "client_a"), false) << "authd's own session";
}

}  // namespace
}  // namespace authd
