// Directory users' accounts in authd (Accounts::sign_in_directory): linked
// by the entry's stable id, never to a local account of the same name, and
// their password, role and deletion refused in authd (409, docs/directory.md);
// their password changed through the directory only with
// directory_password_change = user (the changes themselves:
// test/blackbox/t_directory_ldap.sh, t_directory_ad.sh); and how long
// DirectoryUsers::await_role waits for a check.
#include <gtest/gtest.h>

#include <optional>

#include "authd/accounts.hpp"
#include "authd/directory.hpp"
#include "test_support.hpp"

namespace authd {
namespace {

class DirectoryAccountsTest : public ::testing::Test {
 protected:
  void SetUp() override { accounts_.emplace(db_.store(), hasher_, CredentialPolicy{}); }

  static DirectoryAccount alice(Role role = Role::editor) {
    return {.stable_id = "e0364a1c-7f67-1041-8701-0b1c45281597", .username = "alice", .fullname = "Alice Example",
            .email = "alice@example.org", .role = role};
  }

  test::TempStore db_;
  PasswordHasher hasher_{test::kFastArgon2};
  std::optional<Accounts> accounts_;
};

TEST_F(DirectoryAccountsTest, TheFirstSignInCreatesALinkedAccountWithoutAPassword) {
  auto user = accounts_->sign_in_directory(alice());
  ASSERT_TRUE(user) << user.error().message;
  EXPECT_EQ(user->username, "alice");
  EXPECT_EQ(user->role, Role::editor);
  EXPECT_TRUE(user->password_hash.empty());
  EXPECT_TRUE(user->email_verified);
  EXPECT_TRUE(is_directory_user(*user));
  EXPECT_EQ(directory_id(*user), "e0364a1c-7f67-1041-8701-0b1c45281597");
  // No password sign-in through authd's own check.
  EXPECT_FALSE(accounts_->sign_in({"alice", ""}));
  EXPECT_FALSE(accounts_->sign_in({"alice", "anything"}));
}

TEST_F(DirectoryAccountsTest, LaterSignInsUpdateTheSameAccount) {
  auto first = accounts_->sign_in_directory(alice());
  ASSERT_TRUE(first);
  auto entry = alice(Role::admin);
  entry.email = "alice@new.example.org";
  auto again = accounts_->sign_in_directory(entry);
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(again->id, first->id);
  EXPECT_EQ(again->role, Role::admin);
  EXPECT_EQ(again->email, "alice@new.example.org");
  EXPECT_EQ(again->version, first->version + 1);
}

TEST_F(DirectoryAccountsTest, NeverTakesALocalAccountOrAnotherEntrysName) {
  ASSERT_TRUE(accounts_->create("bob", "bob's local password", Role::admin, "", ""));
  auto bob = alice();
  bob.username = "bob";
  bob.stable_id = "11111111-2222-3333-4444-555555555555";
  auto refused = accounts_->sign_in_directory(bob);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, Errc::conflict);
  EXPECT_TRUE(accounts_->sign_in({"bob", "bob's local password"})) << "the local account is untouched";

  ASSERT_TRUE(accounts_->sign_in_directory(alice()));
  auto reused = alice();
  reused.stable_id = "another entry";
  auto taken = accounts_->sign_in_directory(reused);
  ASSERT_FALSE(taken);
  EXPECT_EQ(taken.error().code, Errc::conflict);
}

TEST_F(DirectoryAccountsTest, RefusesANameAuthdWouldNotTakeOrNoStableId) {
  auto hostile = alice();
  hostile.username = "al*ce";
  EXPECT_EQ(accounts_->sign_in_directory(hostile).error().code, Errc::invalid_login);
  auto anonymous = alice();
  anonymous.stable_id.clear();
  EXPECT_EQ(accounts_->sign_in_directory(anonymous).error().code, Errc::invalid_login);
}

TEST_F(DirectoryAccountsTest, PasswordRoleAndDeletionAreTheDirectorys) {
  ASSERT_TRUE(accounts_->sign_in_directory(alice()));
  auto changed = accounts_->change_password("alice", "x", "a new password");
  ASSERT_FALSE(changed);
  EXPECT_EQ(changed.error().code, Errc::conflict);
  EXPECT_EQ(changed.error().message, kDirectoryManagesPassword);
  auto promoted = accounts_->set_role("alice", Role::admin, /*force=*/true);
  ASSERT_FALSE(promoted);
  EXPECT_EQ(promoted.error().code, Errc::conflict);
  auto removed = accounts_->remove("alice");
  ASSERT_FALSE(removed);
  EXPECT_EQ(removed.error().code, Errc::conflict);
  EXPECT_TRUE(accounts_->remove("alice", /*force=*/true)) << "an operator's --force removes it";
}

// A directory that refuses connections (nothing listens on port 1).
DirectorySettings unreachable_directory(DirectoryPasswordChange change) {
  DirectorySettings s;
  s.urls = {"ldap://127.0.0.1:1"};
  s.user_base = "dc=example,dc=org";
  s.default_role = Role::user;
  s.network_timeout = std::chrono::seconds(1);
  s.password_change = change;
  return s;
}

TEST_F(DirectoryAccountsTest, APasswordChangeGoesToTheDirectoryOnlyWhenAllowed) {
  const auto before = accounts_->sign_in_directory(alice());
  ASSERT_TRUE(before);
  DirectoryUsers off(unreachable_directory(DirectoryPasswordChange::off), no_events());
  accounts_->use_directory(&off);
  auto refused = accounts_->change_password("alice", "her password", "a new password");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, Errc::conflict);
  EXPECT_EQ(refused.error().message, kDirectoryManagesPassword);

  DirectoryUsers on(unreachable_directory(DirectoryPasswordChange::user), no_events());
  accounts_->use_directory(&on);
  auto down = accounts_->change_password("alice", "her password", "a new password");
  ASSERT_FALSE(down);
  EXPECT_EQ(down.error().code, Errc::unavailable) << down.error().message;
  EXPECT_EQ(down.error().message, "the directory cannot be reached: the password cannot be changed now")
      << "the servers' names stay in the log";
  EXPECT_TRUE(down.error().retry_after);
  // Refused before any server is asked.
  EXPECT_EQ(accounts_->change_password("alice", "", "a new password").error().code, Errc::invalid_login);
  auto empty = accounts_->change_password("alice", "her password", "");
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.error().code, Errc::invalid_input);
  EXPECT_EQ(empty.error().field, "new_password");
  // Nothing changed in authd: the tokens live on.
  EXPECT_EQ(accounts_->find("alice")->token_generation, before->token_generation);
  EXPECT_EQ(accounts_->find("alice")->version, before->version);
  accounts_->use_directory(nullptr);
}

TEST_F(DirectoryAccountsTest, ARefreshedRoleIsStoredForTheLinkedEntryOnly) {
  ASSERT_TRUE(accounts_->sign_in_directory(alice(Role::editor)));
  ASSERT_TRUE(accounts_->follow_directory_role("ALICE", "another entry", Role::admin));
  EXPECT_EQ(accounts_->find("alice")->role, Role::editor) << "another stable id changes nothing";
  ASSERT_TRUE(accounts_->follow_directory_role("ALICE", alice().stable_id, Role::writer));
  EXPECT_EQ(accounts_->find("alice")->role, Role::writer);
  ASSERT_TRUE(accounts_->create("bob", "bob's local password", Role::admin, "", ""));
  ASSERT_TRUE(accounts_->follow_directory_role("bob", "", Role::user));
  EXPECT_EQ(accounts_->find("bob")->role, Role::admin) << "a local account is never changed";
  EXPECT_TRUE(accounts_->follow_directory_role("nobody", alice().stable_id, Role::user));
}

// The guard's wait off the event loop (Guard::current_role on a store
// thread): an account this process has not checked, signed in long ago,
// waits for the refresher's check; with the directory down that check fails
// and the answer is unavailable (503) once it has, not after a hang.
TEST(DirectoryUsersTest, AwaitRoleWaitsForTheCheckOnlyWhileItCanHelp) {
  DirectoryUsers users(unreachable_directory(DirectoryPasswordChange::off), no_events());
  const std::int64_t now = 1'800'000'000;
  const std::string id = "e0364a1c-7f67-1041-8701-0b1c45281597";
  auto recent = users.await_role("alice", id, now - 1, now);
  ASSERT_TRUE(recent) << recent.error().message;
  EXPECT_FALSE(*recent) << "signed in less than directory_cache_ttl ago: the stored role, no wait";
  auto at_once = users.role_now("bob", id, now - 3600, now);
  ASSERT_FALSE(at_once);
  EXPECT_EQ(at_once.error().code, Errc::unavailable) << "role_now never waits";
  const auto started = std::chrono::steady_clock::now();
  auto waited = users.await_role("carol", id, now - 3600, now);
  const auto took = std::chrono::steady_clock::now() - started;
  ASSERT_FALSE(waited);
  EXPECT_EQ(waited.error().code, Errc::unavailable);
  EXPECT_TRUE(waited.error().retry_after);
  EXPECT_LT(took, std::chrono::seconds(3)) << "bounded by directory_network_timeout (1 s here)";
}

}  // namespace
}  // namespace authd
