// Attack: impersonation by look-alike names. With names unique byte for byte,
// "Admin" can register next to "admin", and people (and logs, and admins
// reading a list) take one for the other; sign-in with the "wrong" case
// fails for the real owner. Usernames are unique under a canonical form
// (ASCII case-folded: only ASCII characters are allowed) and sign-in matches
// by it, while the account keeps the name as registered.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "authd/username_index.hpp"
#include "authd/accounts.hpp"
#include "test_support.hpp"

namespace authd {
namespace {

class CanonicalUsernames : public ::testing::Test {
 protected:
  void SetUp() override { accounts_.emplace(db_.store(), hasher_, CredentialPolicy{}); }
  Result<User> sign_up(std::string name) {
    return accounts_->sign_up(SignupRequest{std::move(name), "correct horse", "A", "a@example.org"});
  }

  test::TempStore db_;
  PasswordHasher hasher_{test::kFastArgon2};
  std::optional<Accounts> accounts_;
};

TEST_F(CanonicalUsernames, ACaseVariantOfATakenNameIsAConflict) {
  ASSERT_EQ("ok", outcome(sign_up("Alice")));
  EXPECT_EQ("conflict", outcome(sign_up("alice")));
  EXPECT_EQ("conflict", outcome(sign_up("ALICE")));
  EXPECT_EQ("conflict", outcome(accounts_->create("aLiCe", "correct horse", Role::admin, "", "")));
  EXPECT_EQ("not_found", outcome(db_->find_user("alice")));
}

TEST_F(CanonicalUsernames, SignInMatchesAnyCaseAndAnswersTheRegisteredName) {
  ASSERT_EQ("ok", outcome(sign_up("Alice")));
  for (const char* typed : {"Alice", "alice", "ALICE"}) {
    auto user = accounts_->sign_in(BasicCredentials{typed, "correct horse"});
    ASSERT_EQ("ok", outcome(user)) << typed;
    EXPECT_EQ("Alice", user->username) << typed;
  }
  EXPECT_EQ("invalid_login", outcome(accounts_->sign_in(BasicCredentials{"alice", "wrong"})));
}

TEST_F(CanonicalUsernames, ARemovedNameIsFreeInEveryCase) {
  ASSERT_EQ("ok", outcome(sign_up("Bob")));
  ASSERT_EQ("ok", outcome(accounts_->remove("Bob")));
  EXPECT_EQ("ok", outcome(sign_up("bob")));
  EXPECT_EQ("invalid_login", outcome(accounts_->sign_in(BasicCredentials{"Bob", "wrong"})));
  EXPECT_EQ("bob", accounts_->sign_in(BasicCredentials{"BOB", "correct horse"})->username);
}

TEST_F(CanonicalUsernames, AStoreFromBeforeTheIndexGetsItBuiltOnce) {
  // Users written straight to the store, as older versions did.
  test::insert_user(db_.store(), "Carol");
  test::insert_user(db_.store(), "carol");  // both keep signing in by their exact names
  test::insert_user(db_.store(), "Dave");
  ASSERT_EQ("ok", outcome(username_index::build_if_missing(db_.store())));
  EXPECT_EQ("conflict", outcome(sign_up("DAVE")));
  EXPECT_EQ("conflict", outcome(sign_up("CAROL")));
  auto found = username_index::find_user(db_.store(), "dave");
  ASSERT_EQ("ok", outcome(found));
  EXPECT_EQ("Dave", found->username);
  EXPECT_EQ("carol", username_index::find_user(db_.store(), "carol")->username);
  EXPECT_EQ("Carol", username_index::find_user(db_.store(), "Carol")->username);
}

TEST_F(CanonicalUsernames, TheFirstBuildCoversEveryPageOfALargerStore) {
  // 2,500 users: three pages of the build, the last one short.
  constexpr int kUsers = 2500;
  auto name = [](int i) { return "User" + std::to_string(10000 + i); };
  ASSERT_EQ("ok", outcome(db_.store().write([&](StoreTxn& txn) -> Result<void> {
    for (int i = 0; i < kUsers; ++i) {
      User user;
      user.id = new_object_id();
      user.username = name(i);
      user.role = Role::user;
      if (auto ok = txn.insert_user(user); !ok) return ok;
    }
    return {};
  })));
  ASSERT_EQ("ok", outcome(username_index::build_if_missing(db_.store())));
  for (int i : {0, 999, 1000, 1001, 1999, 2000, kUsers - 1}) {
    auto found = username_index::find_user(db_.store(), "user" + std::to_string(10000 + i));
    ASSERT_EQ("ok", outcome(found)) << i;
    EXPECT_EQ(name(i), found->username);
    EXPECT_EQ("conflict", outcome(sign_up("USER" + std::to_string(10000 + i)))) << i;
  }
}

TEST(CanonicalUsernameForm, IsAsciiLowerCase) {
  EXPECT_EQ("alice.o'x@a-b+c_d", username_index::canonical("ALICE.O'x@A-B+c_D"));
}

}  // namespace
}  // namespace authd
