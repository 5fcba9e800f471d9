// POST /password/forgot's lookup by address (PasswordReset::request with an
// email): it finds the accounts of the address through the store's email
// index, ASCII case-insensitively, at most ten of them, and only them.
#include "authd/password_reset.hpp"

#include <gtest/gtest.h>

#include <set>

#include "authd/json.hpp"
#include "authd/store_backends.hpp"
#include "fixtures.hpp"
#include "test_support.hpp"

namespace authd {
namespace {

constexpr std::int64_t kNow = 1800000000;

class PasswordResetByEmail : public ::testing::Test {
 protected:
  void SetUp() override {
    accounts_ = std::make_unique<Accounts>(*store_, hasher_, CredentialPolicy{});
    reset_ = std::make_unique<PasswordReset>(*store_, *accounts_, hasher_, settings_, templates_);
  }

  void add(const std::string& username, const std::string& email) {
    User user;
    user.id = new_object_id();
    user.username = username;
    user.email = email;
    ASSERT_TRUE(store_->write([&](StoreTxn& txn) { return txn.insert_user(user); }));
  }

  // The addressees of the queued mails, by username.
  std::multiset<std::string> mailed() {
    std::multiset<std::string> out;
    auto all = read_value(*store_, [&](StoreTxn& txn) { return txn.list_entries(PasswordReset::kNamespace); });
    EXPECT_TRUE(all);
    for (const auto& [key, text] : *all) {
      auto value = Json::parse(text);
      EXPECT_TRUE(value);
      out.emplace(value->get_string("username").value_or(""));
    }
    return out;
  }

  test::TempStore store_;
  PasswordHasher hasher_{test::kFastArgon2};
  MailSettings settings_ = test::mail_settings();
  mail::Templates templates_ = test::builtin_templates();
  std::unique_ptr<Accounts> accounts_;
  std::unique_ptr<PasswordReset> reset_;
};

TEST_F(PasswordResetByEmail, MailsEveryAccountOfTheAddressWhateverItsCase) {
  add("alice", "Alice@Example.org");
  add("alice2", "alice@example.org");
  add("bob", "bob@example.org");
  std::string found;
  auto outcome = reset_->request("", "ALICE@example.ORG", kNow, found);
  ASSERT_TRUE(outcome) << outcome.error().message;
  EXPECT_EQ(MailOutcome::queued, *outcome);
  EXPECT_EQ((std::multiset<std::string>{"alice", "alice2"}), mailed());
}

TEST_F(PasswordResetByEmail, AtMostTenAccountsOfOneAddress) {
  for (int i = 0; i < 12; ++i) add("user" + std::to_string(100 + i), "shared@example.org");
  std::string found;
  ASSERT_EQ(MailOutcome::queued, reset_->request("", "shared@example.org", kNow, found).value_or(MailOutcome::mail_off));
  const auto names = mailed();
  EXPECT_EQ(10u, names.size());
  EXPECT_EQ(0u, names.count("user110"));  // the first ten in username order
  EXPECT_EQ(0u, names.count("user111"));
}

TEST_F(PasswordResetByEmail, AnUnknownAddressMailsNobody) {
  add("alice", "alice@example.org");
  std::string found;
  EXPECT_EQ(MailOutcome::unknown, reset_->request("", "alice@example.com", kNow, found).value_or(MailOutcome::mail_off));
  EXPECT_EQ(MailOutcome::unknown, reset_->request("", "alice@example.or", kNow, found).value_or(MailOutcome::mail_off));
  EXPECT_TRUE(mailed().empty());
  EXPECT_TRUE(found.empty());
}

TEST_F(PasswordResetByEmail, AnAddressChangeIsFollowed) {
  add("carol", "old@example.org");
  ASSERT_TRUE(store_->write([&](StoreTxn& txn) -> Result<void> {
    auto user = txn.find_user("carol");
    if (!user) return std::unexpected(user.error());
    user->email = "new@example.org";
    return txn.replace_user(*user);
  }));
  std::string found;
  EXPECT_EQ(MailOutcome::unknown, reset_->request("", "old@example.org", kNow, found).value_or(MailOutcome::mail_off));
  EXPECT_EQ(MailOutcome::queued, reset_->request("", "new@example.org", kNow, found).value_or(MailOutcome::mail_off));
  EXPECT_EQ("carol", found);
}

}  // namespace
}  // namespace authd
