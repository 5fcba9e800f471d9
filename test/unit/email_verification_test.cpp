// Verified email (lib/accounts/email_verification.cpp) on LMDB: the token is
// stored hashed and single-use, expires, is limited per account, and an
// address change takes effect only through the new address's link (the old
// address gets the email_changed notice in the same transaction).
#include "authd/email_verification.hpp"

#include <gtest/gtest.h>

#include "authd/crypto.hpp"
#include "authd/json.hpp"
#include "authd/store_backends.hpp"
#include "fixtures.hpp"
#include "test_support.hpp"

namespace authd {
namespace {

using namespace std::chrono_literals;

constexpr std::int64_t kNow = 1800000000;

class EmailVerificationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    settings_.email_verify_account_limit = 3;
    verification_ = std::make_unique<EmailVerification>(*store_, settings_, templates_, events_);
    user_.id = "0123456789abcdef01234567";
    user_.username = "alice";
    user_.email = "alice@example.org";
    ASSERT_TRUE(store_->write([&](StoreTxn& txn) { return txn.insert_user(user_); }));
  }

  // The outbox's messages (to, kind) and the token of the newest link.
  std::vector<std::pair<std::string, std::string>> outbox(std::string* token = nullptr) {
    std::vector<std::pair<std::string, std::string>> found;
    auto all = read_value(*store_, [&](StoreTxn& txn) { return txn.list_entries(mail::Outbox::kNamespace); });
    EXPECT_TRUE(all);
    for (const auto& [key, text] : *all) {
      auto value = Json::parse(text);
      EXPECT_TRUE(value);
      const auto opened = mail::Outbox::open(settings_, key, text);
      EXPECT_TRUE(opened);
      const std::string body = opened ? opened->message.text : std::string();
      found.emplace_back(std::string(value->get_string("to").value_or("")),
                         std::string(value->get_string("kind").value_or("")));
      const auto at = body.find("token=");
      if (token && at != std::string::npos) *token = body.substr(at + 6, body.find('\n', at) - at - 6);
    }
    return found;
  }
  User stored() {
    auto user = read_value(*store_, [&](StoreTxn& txn) { return txn.find_user("alice"); });
    EXPECT_TRUE(user);
    return *user;
  }

  // Counts the mails the service says it queued (the sender's wake-up).
  struct Queued final : Events {
    void mail_queued() override { ++count; }
    int count = 0;
  } events_;
  test::TempStore store_;
  MailSettings settings_ = test::mail_settings();
  mail::Templates templates_ = test::builtin_templates();
  std::unique_ptr<EmailVerification> verification_;
  User user_;
};

TEST_F(EmailVerificationTest, LinkVerifiesOnceAndTheTokenIsStoredHashed) {
  auto sent = verification_->send(user_, user_.email, kNow);
  ASSERT_TRUE(sent) << sent.error().message;
  EXPECT_EQ(*sent, MailOutcome::queued);
  EXPECT_EQ(events_.count, 1) << "the events observer hears of the queued mail";
  std::string token;
  const auto mails = outbox(&token);
  ASSERT_EQ(mails.size(), 1u);
  EXPECT_EQ(mails[0].first, "alice@example.org");
  EXPECT_EQ(mails[0].second, "email_verify");
  ASSERT_GE(token.size(), 40u);
  auto entries = read_value(*store_, [&](StoreTxn& txn) { return txn.list_entries(EmailVerification::kNamespace); });
  ASSERT_TRUE(entries);
  ASSERT_EQ(entries->size(), 1u);
  EXPECT_EQ(entries->front().first, crypto::to_hex(crypto::sha256(token))) << "stored as its SHA-256 only";
  EXPECT_EQ(entries->front().second.find(token), std::string::npos);

  EXPECT_FALSE(stored().email_verified);
  auto verified = verification_->verify(token, kNow + 10);
  ASSERT_TRUE(verified) << verified.error().message;
  EXPECT_TRUE(verified->previous_email.empty());
  EXPECT_TRUE(stored().email_verified);
  EXPECT_EQ(stored().version, 1);
  auto again = verification_->verify(token, kNow + 11);
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().field, "token");
  EXPECT_EQ(*verification_->send(stored(), user_.email, kNow), MailOutcome::verified) << "nothing to send once verified";
}

TEST_F(EmailVerificationTest, ExpiredUnknownAndMailOffAreRefused) {
  ASSERT_TRUE(verification_->send(user_, user_.email, kNow));
  std::string token;
  outbox(&token);
  auto late = verification_->verify(token, kNow + settings_.email_verify_ttl.count());
  ASSERT_FALSE(late);
  EXPECT_EQ(late.error().code, Errc::invalid_input);
  EXPECT_FALSE(verification_->verify("unknown-token", kNow));
  EXPECT_FALSE(verification_->verify("", kNow));
  EXPECT_FALSE(stored().email_verified);
  settings_.smtp_url.clear();
  EXPECT_EQ(*verification_->send(user_, user_.email, kNow), MailOutcome::mail_off);
  settings_.smtp_url = "smtp://127.0.0.1:1";
  EXPECT_EQ(*verification_->send(user_, "not an address", kNow), MailOutcome::no_email);
}

TEST_F(EmailVerificationTest, LimitedPerAccountAndHour) {
  for (int i = 0; i < 3; ++i) EXPECT_EQ(*verification_->send(user_, user_.email, kNow + i), MailOutcome::queued);
  EXPECT_EQ(*verification_->send(user_, user_.email, kNow + 5), MailOutcome::limited);
  EXPECT_EQ(outbox().size(), 3u);
  EXPECT_EQ(*verification_->send(user_, user_.email, kNow + 3600), MailOutcome::queued) << "a new hour";
  std::string found;
  EXPECT_EQ(*verification_->resend("nobody", kNow + 3601, found), MailOutcome::unknown);
  EXPECT_EQ(*verification_->resend("alice", kNow + 3601, found), MailOutcome::queued);
  EXPECT_EQ(found, "alice");
}

TEST_F(EmailVerificationTest, ChangeTakesEffectOnlyThroughTheNewAddressAndTellsTheOldOne) {
  User verified = user_;
  verified.email_verified = true;
  ASSERT_TRUE(store_->write([&](StoreTxn& txn) { return txn.replace_user(verified); }));
  ASSERT_EQ(*verification_->send(verified, "new@example.net", kNow), MailOutcome::queued);
  EXPECT_EQ(stored().email, "alice@example.org") << "unchanged until verified";
  EXPECT_EQ(*verification_->pending_change(stored(), kNow + 1), "new@example.net");
  std::string token;
  auto mails = outbox(&token);
  ASSERT_EQ(mails.size(), 1u);
  EXPECT_EQ(mails[0].first, "new@example.net");
  auto done = verification_->verify(token, kNow + 2);
  ASSERT_TRUE(done) << done.error().message;
  EXPECT_EQ(done->previous_email, "alice@example.org");
  EXPECT_EQ(stored().email, "new@example.net");
  EXPECT_TRUE(stored().email_verified);
  EXPECT_EQ(*verification_->pending_change(stored(), kNow + 3), "");
  mails = outbox();
  ASSERT_EQ(mails.size(), 2u);
  bool told = false;
  for (const auto& [to, kind] : mails) told = told || (to == "alice@example.org" && kind == "email_changed");
  EXPECT_TRUE(told) << "the old address gets the email_changed notice";
}

}  // namespace
}  // namespace authd
