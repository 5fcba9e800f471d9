// The token lifecycle in lib/: revocation by jti and generation (and when the
// guard reads the list), refresh-token rotation and reuse detection, the
// password change, and the User record's format 3 (formats 1 and 2 still read).
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "../../lib/store/lmdb/user_codec.hpp"
#include "authd/accounts.hpp"
#include "authd/crypto.hpp"
#include "authd/guard.hpp"
#include "authd/refresh.hpp"
#include "authd/revocation.hpp"
#include "test_support.hpp"

namespace authd {
namespace {

constexpr std::int64_t kNow = 1'700'000'000;

class LifecycleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto tokens = TokenService::create(SigningKey(std::string(32, 'l')), TokenPolicy{});
    ASSERT_TRUE(tokens.has_value());
    tokens_.emplace(std::move(*tokens));
    guard_.emplace(*tokens_, db_.store());
    alice_ = test::insert_user(db_.store(), "alice");
  }
  User fresh(std::string_view name = "alice") { return *db_->find_user(name); }
  std::string token_for(const User& user, std::int64_t now = kNow) {
    return tokens_->issue(kAccessTokenType, user.id, user.username, now, lifecycle_claims(user));
  }
  Result<Principal> check(const std::string& token, std::int64_t now = kNow) {
    return guard_->check("Bearer " + token, std::nullopt, now);
  }
  TokenClaims claims_of(const std::string& token) { return *tokens_->verify(token, kAccessTokenType, kNow); }

  test::TempStore db_;
  std::optional<TokenService> tokens_;
  std::optional<Guard> guard_;
  User alice_;
  TokenRevocation revocation_{db_.store()};
};

TEST_F(LifecycleTest, SignOutRevokesExactlyThatToken) {
  const auto one = token_for(alice_), two = token_for(alice_);
  ASSERT_TRUE(revocation_.revoke("alice", claims_of(one), kNow));
  EXPECT_EQ(outcome(check(one)), "invalid_token");
  EXPECT_EQ(outcome(check(two)), "ok");
  EXPECT_EQ(outcome(check(one)), "invalid_token") << "the verified-token cache must not let it through";
  auto listed = read_value(db_.store(), [&](StoreTxn& txn) { return txn.list_entries(kRevokedTokenNamespace); });
  ASSERT_TRUE(listed);
  EXPECT_EQ(listed->size(), 1u);
}

TEST_F(LifecycleTest, TheRevocationListIsBoundedByExpiry) {
  const auto one = token_for(alice_);
  ASSERT_TRUE(revocation_.revoke("alice", claims_of(one), kNow));
  const auto exp = claims_of(one).expires_at;
  std::size_t dropped = 0;
  ASSERT_TRUE(db_->write([&](StoreTxn& txn) -> Result<void> {
    auto n = txn.purge_expired(exp);
    if (!n) return std::unexpected(n.error());
    dropped = *n;
    return {};
  }));
  EXPECT_EQ(dropped, 1u);
}

TEST_F(LifecycleTest, TokensIssuedAfterTheLastSignOutNeedNoListRead) {
  const auto old_token = token_for(alice_, kNow - 10);
  ASSERT_TRUE(revocation_.revoke("alice", claims_of(old_token), kNow - 5));
  const User user = fresh();
  EXPECT_EQ(user.last_revocation, kNow - 5);
  // A later token is judged from the record alone: it passes even with the
  // list gone (a read would not find it either, but it is never made).
  TokenClaims later = claims_of(token_for(user, kNow));
  EXPECT_TRUE(revocation_.check(user, later));
  EXPECT_GT(later.issued_at, user.last_revocation);
}

TEST_F(LifecycleTest, EndAllEndsEveryTokenAndOnlyOlderOnes) {
  const auto one = token_for(alice_), two = token_for(alice_);
  auto updated = revocation_.end_all("alice");
  ASSERT_TRUE(updated);
  EXPECT_EQ(updated->token_generation, 1);
  EXPECT_EQ(outcome(check(one)), "invalid_token");
  EXPECT_EQ(outcome(check(two)), "invalid_token");
  EXPECT_EQ(outcome(check(token_for(*updated))), "ok");
}

TEST_F(LifecycleTest, ATokenWithAForgedGenerationFails) {
  auto forged = tokens_->issue(kAccessTokenType, alice_.id, "alice", kNow, {{"gen", "x1"}});
  EXPECT_EQ(outcome(check(forged)), "invalid_token");
  auto none = tokens_->issue(kAccessTokenType, alice_.id, "alice", kNow);
  EXPECT_EQ(outcome(check(none)), "ok") << "tokens from before lifecycle support are generation 0";
}

TEST_F(LifecycleTest, PasswordChangeEndsOlderTokens) {
  PasswordHasher hasher(test::kFastArgon2);
  Accounts accounts(db_.store(), hasher, CredentialPolicy{});
  ASSERT_TRUE(accounts.create("bob", "old password", Role::user, "", ""));
  const auto before = token_for(fresh("bob"));
  EXPECT_EQ(outcome(accounts.change_password("bob", "wrong", "new password")), "invalid_login");
  auto empty = accounts.change_password("bob", "old password", "");
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.error().field, "new_password");
  auto changed = accounts.change_password("bob", "old password", "new password");
  ASSERT_TRUE(changed);
  EXPECT_EQ(outcome(check(before)), "invalid_token");
  EXPECT_EQ(outcome(check(token_for(*changed))), "ok");
  EXPECT_EQ(outcome(accounts.sign_in({"bob", "new password"})), "ok");
  EXPECT_EQ(outcome(accounts.sign_in({"bob", "old password"})), "invalid_login");
}

TEST(RefreshTokens, RotateOnceAndReuseEndsTheFamily) {
  test::TempStore db;
  const User alice = test::insert_user(db.store(), "alice");
  RefreshTokens refresh(db.store(), RefreshPolicy{std::chrono::seconds(600)});
  ASSERT_TRUE(refresh.enabled());
  auto first = refresh.start(alice, kNow);
  ASSERT_TRUE(first);
  auto second = refresh.rotate(first->refresh_token, kNow + 1);
  ASSERT_TRUE(second);
  EXPECT_EQ(second->user.username, "alice");
  EXPECT_EQ(second->family, first->family);
  EXPECT_NE(second->refresh_token, first->refresh_token);
  EXPECT_EQ(outcome(refresh.rotate(first->refresh_token, kNow + 2)), "invalid_token") << "single use";
  EXPECT_EQ(outcome(refresh.rotate(second->refresh_token, kNow + 3)), "invalid_token") << "reuse ended the family";
}

TEST(RefreshTokens, ExpiryGarbageAndSignOutEverywhere) {
  test::TempStore db;
  const User alice = test::insert_user(db.store(), "alice");
  RefreshTokens refresh(db.store(), RefreshPolicy{std::chrono::seconds(600)});
  auto token = refresh.start(alice, kNow);
  ASSERT_TRUE(token);
  EXPECT_EQ(outcome(refresh.rotate(token->refresh_token, kNow + 600)), "invalid_token") << "expired";
  for (const std::string& bad : std::vector<std::string>{"", "a.b", "x.y.z", std::string(200, 'a'), alice.id + "." + std::string(32, '0') + ".s"}) {
    EXPECT_EQ(outcome(refresh.rotate(bad, kNow)), "invalid_token") << bad;
  }
  auto a = refresh.start(alice, kNow), b = refresh.start(alice, kNow);
  ASSERT_TRUE(refresh.end_user(alice.id));
  EXPECT_EQ(outcome(refresh.rotate(a->refresh_token, kNow + 1)), "invalid_token");
  EXPECT_EQ(outcome(refresh.rotate(b->refresh_token, kNow + 1)), "invalid_token");
}

// Attack: a stolen refresh token rotated every few minutes would otherwise
// live for ever; refresh_token_max_age ends the family however it rotates.
TEST(RefreshTokens, AFamilyNeverOutlivesItsMaxAge) {
  test::TempStore db;
  const User alice = test::insert_user(db.store(), "alice");
  RefreshTokens refresh(db.store(), RefreshPolicy{std::chrono::seconds(600), std::chrono::seconds(1000)});
  auto started = refresh.start(alice, kNow);
  ASSERT_TRUE(started);
  EXPECT_EQ(started->expires_at, kNow + 600);
  std::string token = started->refresh_token;
  std::int64_t at = kNow;
  for (int i = 0; i < 3; ++i) {  // rotating every 300 s: well within the ttl
    at += 300;
    auto next = refresh.rotate(token, at);
    ASSERT_TRUE(next) << "rotation " << i << ": " << next.error().message;
    EXPECT_LE(next->expires_at, kNow + 1000) << "capped by the family's max age";
    token = next->refresh_token;
  }
  EXPECT_EQ(outcome(refresh.rotate(token, kNow + 1000)), "invalid_token") << "max age reached";
  EXPECT_EQ(outcome(refresh.rotate(token, kNow + 999)), "invalid_token") << "and the family is gone";
}

// Attack: signing out with an access token left its refresh family alive
// (the cookie never reaches /signout); the token's `sid` names the family.
TEST(RefreshTokens, EndFamilyEndsThatFamilyOnly) {
  test::TempStore db;
  const User alice = test::insert_user(db.store(), "alice");
  RefreshTokens refresh(db.store(), RefreshPolicy{std::chrono::seconds(600)});
  auto mine = refresh.start(alice, kNow), other = refresh.start(alice, kNow);
  ASSERT_TRUE(mine && other);
  ASSERT_TRUE(refresh.end_family(alice.id, mine->family));
  EXPECT_EQ(outcome(refresh.rotate(mine->refresh_token, kNow + 1)), "invalid_token");
  EXPECT_EQ(outcome(refresh.rotate(other->refresh_token, kNow + 1)), "ok");
  EXPECT_TRUE(refresh.end_family(alice.id, "unknown"));
}

// A family stored before refresh_token_max_age (no start time) counts from
// its last rotation.
TEST(RefreshTokens, OldEntriesWithoutAStartTimeAreCapped) {
  test::TempStore db;
  const User alice = test::insert_user(db.store(), "alice");
  RefreshTokens refresh(db.store(), RefreshPolicy{std::chrono::seconds(600), std::chrono::seconds(700)});
  const std::string family(32, 'a');
  const std::string secret = "s3cret";
  ASSERT_TRUE(db.store().write([&](StoreTxn& txn) {
    return txn.put_entry("refresh:" + alice.id, family,
                         std::to_string(kNow + 600) + "\nalice\n" + crypto::to_hex(crypto::sha256(secret)), kNow + 600);
  }));
  auto next = refresh.rotate(alice.id + "." + family + "." + secret, kNow + 500);
  ASSERT_TRUE(next) << next.error().message;
  EXPECT_EQ(next->expires_at, kNow + 700);
}

TEST(UserCodec, Format3RoundTripsAndFormats1And2AreStillRead) {
  User user;
  user.id = "0123456789abcdef01234567";
  user.username = "alice";
  user.role = Role::editor;
  user.links = {"github:1"};
  user.token_generation = 7;
  user.last_revocation = kNow;
  user.email_verified = true;
  const auto bytes = store_detail::encode_user(user);
  auto back = store_detail::decode_user(bytes);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->token_generation, 7);
  EXPECT_EQ(back->last_revocation, kNow);
  EXPECT_TRUE(back->email_verified);
  EXPECT_EQ(back->links, user.links);
  // Format 2: without the trailing email_verified byte (unverified).
  std::string v2 = bytes.substr(0, bytes.size() - 1);
  v2[1] = 2;
  auto older = store_detail::decode_user(v2);
  ASSERT_TRUE(older);
  EXPECT_EQ(older->token_generation, 7);
  EXPECT_FALSE(older->email_verified);
  // Format 1: the same record without the two trailing numbers either.
  std::string v1 = bytes.substr(0, bytes.size() - 17);
  v1[1] = 1;
  auto old = store_detail::decode_user(v1);
  ASSERT_TRUE(old);
  EXPECT_EQ(old->username, "alice");
  EXPECT_EQ(old->token_generation, 0);
  EXPECT_EQ(old->last_revocation, 0);
  EXPECT_FALSE(old->email_verified);
  EXPECT_FALSE(store_detail::decode_user(bytes.substr(0, bytes.size() - 3))) << "truncated";
  std::string bad_flag = bytes;
  bad_flag.back() = 2;
  EXPECT_FALSE(store_detail::decode_user(bad_flag)) << "email_verified is 0 or 1";
  std::string v4 = bytes;
  v4[1] = 4;
  EXPECT_FALSE(store_detail::decode_user(v4)) << "unknown format";
}

}  // namespace
}  // namespace authd
