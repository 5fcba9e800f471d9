// Invitations (lib/accounts/invitations.cpp) on LMDB: the token is stored
// only as its SHA-256 and mailed in the same transaction; accepting applies
// the sign-up rules, gives the invited role and a verified address, and
// spends the invitation once (a taken name or a refused password leaves it
// usable); expired and revoked invitations let nobody in. And signup_mode =
// invite: a third-party identity without an account is refused.
#include "authd/invitations.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "authd/crypto.hpp"
#include "authd/json.hpp"
#include "fixtures.hpp"
#include "test_support.hpp"

namespace authd {
namespace {

using namespace std::chrono_literals;

constexpr std::int64_t kNow = 1800000000;
constexpr std::string_view kSite = "https://auth.example.org";

class InvitationsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    policy_.password_min_length = 8;
    invitations_ = std::make_unique<Invitations>(store_.store(), hasher_, policy_, templates_, mail_);
  }

  IssuedInvitation invite(std::string_view email = "new@example.org", Role role = Role::editor,
                          std::chrono::seconds ttl = 7 * 24h, bool send_mail = true) {
    auto issued = invitations_->create(email, role, "authctl:root", "", ttl, kSite, send_mail, kNow);
    EXPECT_TRUE(issued) << issued.error().message;
    return issued ? *issued : IssuedInvitation{};
  }
  static std::string token_of(const IssuedInvitation& issued) {
    return issued.link.substr(issued.link.find("#token=") + 7);
  }
  std::vector<std::pair<std::string, std::string>> entries(std::string_view ns) {
    auto all = read_value(store_.store(), [&](StoreTxn& txn) { return txn.list_entries(ns); });
    EXPECT_TRUE(all);
    return all ? *all : std::vector<std::pair<std::string, std::string>>{};
  }
  Result<User> accept(const std::string& token, std::string username, std::int64_t now = kNow + 60,
                      std::string password = "correct horse") {
    return invitations_->accept({token, std::move(username), std::move(password), "New Person"}, now);
  }

  test::TempStore store_;
  PasswordHasher hasher_{test::kFastArgon2};
  CredentialPolicy policy_;
  mail::Templates templates_ = test::builtin_templates();
  MailSettings mail_;  // its outbox_key: the all-zero test key
  std::unique_ptr<Invitations> invitations_;
};

TEST_F(InvitationsTest, TheTokenIsStoredHashedAndMailedInTheSameWrite) {
  const auto issued = invite();
  EXPECT_TRUE(issued.mailed);
  EXPECT_EQ(issued.invitation.role, Role::editor);
  EXPECT_EQ(issued.invitation.expires_at, kNow + 7 * 86400);
  ASSERT_TRUE(issued.link.starts_with(std::string(kSite) + "/invite#token="));
  const std::string token = token_of(issued);
  EXPECT_GE(token.size(), 40u);

  const auto stored = entries(Invitations::kNamespace);
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_EQ(stored[0].first, crypto::to_hex(crypto::sha256(token)));
  EXPECT_EQ(stored[0].second.find(token), std::string::npos) << "the token itself is never stored";

  const auto outbox = entries(mail::Outbox::kNamespace);
  ASSERT_EQ(outbox.size(), 1u);
  auto message = Json::parse(outbox[0].second);
  ASSERT_TRUE(message);
  EXPECT_EQ(message->get_string("to").value_or(""), "new@example.org");
  EXPECT_EQ(message->get_string("kind").value_or(""), "invitation");
  EXPECT_EQ(outbox[0].second.find(token), std::string::npos) << "the queued link rests sealed";
  const auto opened = mail::Outbox::open(mail_, outbox[0].first, outbox[0].second);
  ASSERT_TRUE(opened);
  const std::string text = opened->message.text;
  EXPECT_NE(text.find(issued.link), std::string::npos) << text;
  EXPECT_NE(text.find("editor"), std::string::npos) << text;
  EXPECT_NE(text.find("7 days"), std::string::npos) << text;
}

TEST_F(InvitationsTest, WithoutMailNothingIsQueued) {
  const auto issued = invite("new@example.org", Role::user, 3600s, false);
  EXPECT_FALSE(issued.mailed);
  EXPECT_EQ(entries(Invitations::kNamespace).size(), 1u);
  EXPECT_TRUE(entries(mail::Outbox::kNamespace).empty());
}

TEST_F(InvitationsTest, AcceptingGivesTheRoleAndAVerifiedAddressOnce) {
  const std::string token = token_of(invite());
  auto user = accept(token, "newbie");
  ASSERT_TRUE(user) << user.error().message;
  EXPECT_EQ(user->role, Role::editor);
  EXPECT_EQ(user->email, "new@example.org");
  EXPECT_TRUE(user->email_verified);
  EXPECT_EQ(user->fullname, "New Person");
  auto stored = store_->find_user("newbie");
  ASSERT_TRUE(stored);
  EXPECT_EQ(stored->role, Role::editor);
  EXPECT_TRUE(stored->email_verified);
  EXPECT_TRUE(hasher_.verify(stored->password_hash, "correct horse"));
  EXPECT_TRUE(entries(Invitations::kNamespace).empty()) << "the invitation is used up";

  auto again = accept(token, "someone.else");
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code, Errc::invalid_input);
  EXPECT_EQ(again.error().field, "token");
  EXPECT_FALSE(store_->find_user("someone.else"));
}

TEST_F(InvitationsTest, ConcurrentAcceptsOfOneInvitationMakeOneAccount) {
  const std::string token = token_of(invite());
  std::atomic<int> accepted{0}, refused{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&, i] {
      auto user = accept(token, "racer" + std::to_string(i));
      if (user) ++accepted;
      else if (user.error().field == "token") ++refused;
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(accepted.load(), 1);
  EXPECT_EQ(refused.load(), 3);
  auto page = read_value(store_.store(), [](StoreTxn& txn) { return txn.list_users(UserQuery{}); });
  ASSERT_TRUE(page);
  EXPECT_EQ(page->total, 1u);
}

TEST_F(InvitationsTest, ATakenNameOrARefusedPasswordLeavesTheInvitationUsable) {
  Accounts accounts(store_.store(), hasher_, policy_);
  ASSERT_TRUE(accounts.create("Taken", "taken password", Role::user, "", ""));
  const std::string token = token_of(invite());
  auto taken = accept(token, "taken");  // the canonical form is taken
  ASSERT_FALSE(taken);
  EXPECT_EQ(taken.error().code, Errc::conflict);
  EXPECT_EQ(taken.error().message, "username already exists");
  auto short_password = accept(token, "fresh", kNow + 60, "short");
  ASSERT_FALSE(short_password);
  EXPECT_EQ(short_password.error().code, Errc::invalid_input);
  EXPECT_NE(short_password.error().message.find("password"), std::string::npos);
  auto bad_name = accept(token, "no spaces please");
  ASSERT_FALSE(bad_name);
  EXPECT_NE(bad_name.error().message.find("username"), std::string::npos);
  EXPECT_TRUE(accept(token, "fresh")) << "still usable after the refusals";
}

TEST_F(InvitationsTest, ExpiredRevokedAndUnknownTokensLetNobodyIn) {
  const std::string soon = token_of(invite("a@example.org", Role::user, 60s));
  auto late = accept(soon, "late", kNow + 61);
  ASSERT_FALSE(late);
  EXPECT_EQ(late.error().field, "token");

  const auto issued = invite("b@example.org", Role::writer);
  auto revoked = invitations_->revoke(issued.invitation.id);
  ASSERT_TRUE(revoked) << revoked.error().message;
  EXPECT_EQ(revoked->email, "b@example.org");
  EXPECT_EQ(outcome(invitations_->revoke(issued.invitation.id)), "not_found");
  auto after = accept(token_of(issued), "after");
  ASSERT_FALSE(after);
  EXPECT_EQ(after.error().field, "token");

  for (std::string token : {std::string(), std::string(200, 'A'), std::string(43, 'A')}) {
    auto unknown = accept(token, "nobody");
    ASSERT_FALSE(unknown);
    EXPECT_EQ(unknown.error().field, "token");
  }
  EXPECT_FALSE(store_->find_user("late"));
  EXPECT_FALSE(store_->find_user("after"));
}

// What became of each invitation reaches the events observer (authd counts
// it in /metrics): created, accepted, revoked; a refused accept or revoke says nothing.
TEST_F(InvitationsTest, TheEventsObserverHearsWhatBecameOfEachInvitation) {
  struct Heard final : Events {
    std::vector<InvitationEvent> events;
    int mails = 0;
    void invitation(InvitationEvent event) override { events.push_back(event); }
    void mail_queued() override { ++mails; }
  } heard;
  invitations_ = std::make_unique<Invitations>(store_.store(), hasher_, policy_, templates_, mail_, heard);
  const auto kept = invite("a@example.org", Role::user);
  const auto dropped = invite("b@example.org", Role::user, 60s, false);
  EXPECT_EQ(heard.mails, 1);
  ASSERT_TRUE(accept(token_of(kept), "alice"));
  ASSERT_FALSE(accept(token_of(kept), "again"));
  ASSERT_TRUE(invitations_->revoke(dropped.invitation.id));
  ASSERT_FALSE(invitations_->revoke(dropped.invitation.id));
  EXPECT_EQ(heard.events, (std::vector{InvitationEvent::created, InvitationEvent::created, InvitationEvent::accepted,
                                       InvitationEvent::revoked}));
  EXPECT_EQ(to_string(InvitationEvent::accepted), "accepted");
}

// Issue 41: an invitation is only as good as its inviter. The demotion that
// goes through Accounts revokes; accept() checks again whatever happened to
// the inviter's record (changed behind Accounts' back here, on purpose).
TEST_F(InvitationsTest, AnInviterNoLongerAdminGrantsNothing) {
  Accounts accounts(store_.store(), hasher_, policy_);
  auto boss = accounts.create("boss", "boss password", Role::admin, "", "");
  ASSERT_TRUE(boss);
  ASSERT_TRUE(accounts.create("other", "other password", Role::admin, "", ""));
  auto made = [&](std::string_view email, std::string_view by, std::string_view by_id) {
    auto issued = invitations_->create(email, Role::admin, by, by_id, 3600s, kSite, false, kNow);
    EXPECT_TRUE(issued);
    return issued ? token_of(*issued) : std::string();
  };
  const std::string first = made("one@example.org", "boss", boss->id);
  const std::string second = made("two@example.org", "boss", boss->id);
  const std::string ghost = made("ghost@example.org", "ghost", "0123456789abcdef01234567");
  // The record demoted without Accounts (as an old release or a restore would leave it).
  ASSERT_TRUE(store_.store().write([&](StoreTxn& txn) -> Result<void> {
    auto user = txn.find_user("boss");
    if (!user) return std::unexpected(user.error());
    user->role = Role::user;
    return txn.replace_user(*user);
  }));
  auto refused = accept(first, "one");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().field, "token");
  EXPECT_NE(refused.error().message.find("may no longer grant"), std::string::npos) << refused.error().message;
  auto again = accept(first, "one");
  ASSERT_FALSE(again);
  EXPECT_NE(again.error().message.find("unknown, used, revoked"), std::string::npos) << "deleted on refusal";
  EXPECT_FALSE(accept(ghost, "ghost")) << "an inviter that does not exist";
  // Promoted again and demoted through Accounts: the demotion revokes, listing the ids.
  ASSERT_TRUE(accounts.set_role("boss", Role::admin));
  std::vector<std::string> revoked;
  ASSERT_TRUE(accounts.set_role("boss", Role::editor, false, &revoked));
  EXPECT_EQ(revoked.size(), 1u);
  EXPECT_FALSE(accept(second, "two"));
  // A new account under the inviter's name is not the inviter.
  const std::string third = made("three@example.org", "other", "ffffffffffffffffffffffff");
  EXPECT_FALSE(accept(third, "three")) << "another _id";
  const std::string fine = made("four@example.org", "authctl:root", "");
  EXPECT_TRUE(accept(fine, "four")) << "the operator's invitation";
}

TEST_F(InvitationsTest, ListShowsThePendingOnesOldestFirst) {
  invite("first@example.org", Role::user, 3600s);
  auto second =
      invitations_->create("second@example.org", Role::admin, "authctl:root", "", 60s, kSite, true, kNow + 10);
  ASSERT_TRUE(second);
  auto pending = invitations_->list(kNow + 20);
  ASSERT_TRUE(pending);
  ASSERT_EQ(pending->size(), 2u);
  EXPECT_EQ((*pending)[0].email, "first@example.org");
  EXPECT_EQ((*pending)[1].role, Role::admin);
  EXPECT_EQ((*pending)[1].invited_by, "authctl:root");
  pending = invitations_->list(kNow + 100);  // the second one expired
  ASSERT_TRUE(pending);
  ASSERT_EQ(pending->size(), 1u);
  EXPECT_EQ((*pending)[0].email, "first@example.org");
}

TEST_F(InvitationsTest, TheAddressAndLifetimeAreChecked) {
  for (std::string_view email : {"", "no-at-sign", "two@@example.org", "a b@example.org"}) {
    auto refused = invitations_->create(email, Role::user, "authctl:root", "", 3600s, kSite, false, kNow);
    ASSERT_FALSE(refused) << email;
    EXPECT_EQ(refused.error().field, "email") << email;
  }
  // The sign-up accepts it, the mail cannot carry it.
  auto quoted = invitations_->create("\"q\"@example.org", Role::user, "authctl:root", "", 3600s, kSite, true, kNow);
  ASSERT_FALSE(quoted);
  EXPECT_EQ(quoted.error().field, "email");
  for (auto ttl : {0s, kInvitationMaxTtl + 1s}) {
    auto refused = invitations_->create("ok@example.org", Role::user, "authctl:root", "", ttl, kSite, false, kNow);
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().field, "ttl");
  }
  EXPECT_TRUE(entries(Invitations::kNamespace).empty());
}

TEST(SignupModeInvite, AThirdPartyIdentityWithoutAnAccountIsRefused) {
  test::TempStore store;
  PasswordHasher hasher(test::kFastArgon2);
  Accounts accounts(store.store(), hasher, CredentialPolicy{});
  const ExternalIdentity known{"github", "1", "octo", "Octo Cat", "octo@example.org"};
  ASSERT_TRUE(accounts.sign_in_external(known, false, true));  // made while sign-up was open
  auto again = accounts.sign_in_external(known, false, false);
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_FALSE(again->created);
  const ExternalIdentity stranger{"github", "2", "stranger", "", ""};
  auto refused = accounts.sign_in_external(stranger, false, false);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, Errc::signup_closed);
  EXPECT_FALSE(store->find_user("stranger"));
}

// docs/mail.md cannot drift from the settings table: each row, with its default.
TEST(InvitationDocs, EverySettingIsDocumentedWithItsDefault) {
  const std::string doc = test::doc_text("mail.md");
  InvitationSettings settings;
  for (const auto& row : invitation_settings(settings)) {
    const std::string expected = "| `" + row.name + "` | `" + row.show() + "` |";
    EXPECT_NE(doc.find(expected), std::string::npos) << "docs/mail.md lacks the row " << expected;
  }
}

}  // namespace
}  // namespace authd
