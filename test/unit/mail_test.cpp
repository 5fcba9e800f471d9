// lib/mail: message building (RFC 5322 / 2045 / 2047), templates, the outbox
// on LMDB (claim, lease, backoff), and password reset tokens.
#include "authd/mail.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "authd/crypto.hpp"
#include "authd/password_reset.hpp"
#include "authd/store_backends.hpp"
#include "test_support.hpp"

namespace authd {
namespace {

using namespace std::chrono_literals;

TEST(MailAddress, AcceptsOrdinaryAndRefusesHeaderInjection) {
  EXPECT_TRUE(mail::valid_address("alice@example.org"));
  EXPECT_TRUE(mail::valid_address("a.b+tag@sub.example.org"));
  for (const char* bad : {"", "alice", "@example.org", "alice@", "alice@example.org\r\nBcc: x@y.z", "a b@c.d",
                          "<a@b.c>", "a@b@c.d", "a@b..c", ".a@b.c", "a\"b@c.d", "a,b@c.d"}) {
    EXPECT_FALSE(mail::valid_address(bad)) << bad;
  }
  EXPECT_FALSE(mail::valid_address(std::string(250, 'a') + "@b.cd"));
}

TEST(MailAddress, ParsesAndFormatsMailboxes) {
  auto plain = mail::parse_mailbox("noreply@example.org");
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->name, "");
  EXPECT_EQ(mail::format_mailbox(*plain), "noreply@example.org");
  auto named = mail::parse_mailbox("authd <noreply@example.org>");
  ASSERT_TRUE(named);
  EXPECT_EQ(named->name, "authd");
  EXPECT_EQ(mail::format_mailbox(*named), "\"authd\" <noreply@example.org>");
  auto utf8 = mail::parse_mailbox("\"Zoë\" <z@example.org>");
  ASSERT_TRUE(utf8);
  EXPECT_EQ(mail::format_mailbox(*utf8), "=?UTF-8?B?Wm/Dqw==?= <z@example.org>");
  EXPECT_FALSE(mail::parse_mailbox("a <b>"));
  EXPECT_FALSE(mail::parse_mailbox("a\r\n <b@c.d>"));
}

TEST(MailHeader, AsciiStaysAndUtf8BecomesEncodedWords) {
  EXPECT_EQ(mail::encode_header_text("Reset your password"), "Reset your password");
  EXPECT_EQ(mail::encode_header_text("Réinitialiser"), "=?UTF-8?B?UsOpaW5pdGlhbGlzZXI=?=");
  // Control characters never reach a header as they are.
  EXPECT_EQ(mail::encode_header_text("a\r\nBcc: x").find('\n'), std::string::npos);
  // Long text: several words of at most 75 characters, never splitting a character.
  std::string long_text;
  for (int i = 0; i < 40; ++i) long_text += "é€";
  const auto encoded = mail::encode_header_text(long_text);
  std::string decoded;
  std::size_t start = 0;
  while (start < encoded.size()) {
    auto end = encoded.find("\r\n ", start);
    if (end == std::string::npos) end = encoded.size();
    const auto word = encoded.substr(start, end - start);
    EXPECT_LE(word.size(), 75u);
    ASSERT_TRUE(word.starts_with("=?UTF-8?B?") && word.ends_with("?="));
    auto piece = crypto::base64_decode(word.substr(10, word.size() - 12));
    ASSERT_TRUE(piece);
    // Each word is whole UTF-8 on its own.
    EXPECT_FALSE(static_cast<unsigned char>(piece->front()) >= 0x80 && static_cast<unsigned char>(piece->front()) < 0xc0);
    decoded += *piece;
    start = end + 3;
  }
  EXPECT_EQ(decoded, long_text);
}

TEST(MailMessage, HasTheHeadersAndBothPartsWithCrlf) {
  mail::Message message{"bob@example.org", "Héllo", "plain ✓", "<p>html ✓</p>"};
  const auto from = *mail::parse_mailbox("authd <noreply@example.org>");
  const std::string data = mail::build(message, from, 1795000000);
  EXPECT_NE(data.find("Date: " + mail::rfc5322_date(1795000000) + "\r\n"), std::string::npos);
  EXPECT_EQ(mail::rfc5322_date(0), "Thu, 01 Jan 1970 00:00:00 +0000");
  EXPECT_NE(data.find("From: \"authd\" <noreply@example.org>\r\n"), std::string::npos);
  EXPECT_NE(data.find("To: bob@example.org\r\n"), std::string::npos);
  EXPECT_NE(data.find("Subject: =?UTF-8?B?"), std::string::npos);
  EXPECT_NE(data.find("@example.org>\r\n"), std::string::npos);
  EXPECT_NE(data.find("Message-ID: <"), std::string::npos);
  EXPECT_NE(data.find("MIME-Version: 1.0\r\n"), std::string::npos);
  EXPECT_NE(data.find("multipart/alternative; boundary="), std::string::npos);
  EXPECT_NE(data.find("Content-Type: text/plain; charset=UTF-8"), std::string::npos);
  EXPECT_NE(data.find("Content-Type: text/html; charset=UTF-8"), std::string::npos);
  EXPECT_NE(data.find(crypto::base64_encode("plain ✓")), std::string::npos);
  for (std::size_t i = 0; i < data.size(); ++i) {
    if (data[i] == '\n') {
      ASSERT_TRUE(i > 0 && data[i - 1] == '\r') << "bare LF at " << i;
    }
  }
  // Two messages never share a Message-ID.
  auto id = [](const std::string& text) {
    const auto at = text.find("Message-ID: ");
    return text.substr(at, text.find("\r\n", at) - at);
  };
  EXPECT_NE(id(data), id(mail::build(message, from, 1795000000)));
}

TEST(MailTemplates, BuiltInRenderAndEscapeHtml) {
  auto templates = mail::Templates::load({});
  ASSERT_TRUE(templates) << templates.error().message;
  for (const auto& name : mail::Templates::names()) {
    auto message = templates->render(name, "a@b.cd", {{"username", "<al>"}, {"link", "https://x/?a=1&b=2"}});
    ASSERT_TRUE(message) << name;
    EXPECT_FALSE(message->subject.empty()) << name;
    EXPECT_EQ(message->html.find("<al>"), std::string::npos) << name;
  }
  auto reset = templates->render("password_reset", "a@b.cd", {{"link", "https://x/reset#token=T"}});
  EXPECT_NE(reset->text.find("https://x/reset#token=T"), std::string::npos);
  EXPECT_NE(reset->html.find("<a href=\"https://x/reset#token=T\">"), std::string::npos);
}

TEST(MailTemplates, OperatorFilesReplaceBuiltInsAndUnknownPlaceholdersAreRefused) {
  test::TempDir dir;
  std::ofstream(dir.path() / "password_reset.subject") << "Nouveau mot de passe pour {{username}}\n";
  auto templates = mail::Templates::load(dir.path());
  ASSERT_TRUE(templates) << templates.error().message;
  auto message = templates->render("password_reset", "a@b.cd", {{"username", "al"}});
  EXPECT_EQ(message->subject, "Nouveau mot de passe pour al");
  std::ofstream(dir.path() / "invitation.txt") << "{{password}}";
  auto refused = mail::Templates::load(dir.path());
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, Errc::config);
  EXPECT_NE(refused.error().message.find("{{password}}"), std::string::npos);
}

TEST(MailTemplates, TheShippedConfMailFilesLoad) {
  // __FILE__ is relative to the build directory of this test (CTest runs it there).
  const auto shipped = std::filesystem::path(__FILE__).parent_path() / ".." / ".." / "conf" / "mail";
  ASSERT_TRUE(std::filesystem::is_regular_file(shipped / "password_reset.txt")) << shipped;
  auto templates = mail::Templates::load(shipped);
  ASSERT_TRUE(templates) << templates.error().message;
  // ... and say what the built-in texts say (conf/mail/ is their editable copy).
  auto built_in = mail::Templates::load({});
  for (const auto& name : mail::Templates::names()) {
    auto a = templates->render(name, "a@b.cd", {{"username", "u"}});
    auto b = built_in->render(name, "a@b.cd", {{"username", "u"}});
    EXPECT_EQ(a->subject, b->subject) << name;
    EXPECT_EQ(a->text, b->text) << name;
  }
}

class OutboxTest : public ::testing::Test {
 protected:
  void SetUp() override {
    settings_.retry_max = 60s;
    const std::string secret(32, 'k');
    settings_.outbox_key =
        crypto::SealKey::derive({reinterpret_cast<const unsigned char*>(secret.data()), secret.size()}, "mail outbox");
  }
  void enqueue(const std::string& to, std::int64_t now, std::int64_t expires = 0) {
    auto done = store_->write([&](StoreTxn& txn) -> Result<void> {
      auto id = mail::Outbox::enqueue(txn, settings_, {to, "s", "t", ""}, "test", "u", now, expires);
      if (!id) return std::unexpected(id.error());
      return {};
    });
    ASSERT_TRUE(done) << done.error().message;
  }
  test::TempStore store_;
  MailSettings settings_;
};

TEST_F(OutboxTest, ClaimLeasesOldestFirstThenSentDeletes) {
  mail::Outbox outbox(*store_, settings_);
  enqueue("a@example.org", 100);
  enqueue("b@example.org", 100);
  EXPECT_EQ(*outbox.depth(), 2u);
  auto first = outbox.claim(100, 60s);
  ASSERT_TRUE(first && *first);
  EXPECT_EQ((*first)->message.to, "a@example.org");
  auto second = outbox.claim(100, 60s);
  ASSERT_TRUE(second && *second);
  EXPECT_EQ((*second)->message.to, "b@example.org");
  auto none = outbox.claim(100, 60s);  // both leased
  ASSERT_TRUE(none);
  EXPECT_FALSE(*none);
  auto again = outbox.claim(161, 60s);  // a lease that ran out (a sender died) frees the message
  ASSERT_TRUE(again && *again);
  EXPECT_EQ((*again)->message.to, "a@example.org");
  ASSERT_TRUE(outbox.sent(**first));
  ASSERT_TRUE(outbox.sent(**second));
  EXPECT_EQ(*outbox.depth(), 0u);
}

TEST_F(OutboxTest, FailedBacksOffAndKeepsTheMessage) {
  mail::Outbox outbox(*store_, settings_);
  enqueue("a@example.org", 100);
  auto claimed = outbox.claim(100, 60s);
  ASSERT_TRUE(claimed && *claimed);
  ASSERT_TRUE(outbox.failed(**claimed, 100));  // next at 102
  EXPECT_FALSE(*outbox.claim(101, 60s));
  auto retried = outbox.claim(102, 60s);
  ASSERT_TRUE(retried && *retried);
  EXPECT_EQ((*retried)->attempts, 1);
  ASSERT_TRUE(outbox.failed(**retried, 102));  // next at 106
  EXPECT_FALSE(*outbox.claim(105, 60s));
  EXPECT_TRUE(*outbox.claim(106, 60s));
  EXPECT_EQ(*outbox.depth(), 1u);
}

TEST_F(OutboxTest, ExpiredMessagesAreDroppedAndBadAddressesRefused) {
  mail::Outbox outbox(*store_, settings_);
  enqueue("a@example.org", 100, 150);
  EXPECT_FALSE(*outbox.claim(150, 60s));
  EXPECT_EQ(*outbox.depth(), 0u);
  auto refused = store_->write([&](StoreTxn& txn) -> Result<void> {
    auto id = mail::Outbox::enqueue(txn, settings_, {"x@y.z\r\nBcc: all@y.z", "s", "t", ""}, "test", "", 100, 0);
    if (!id) return std::unexpected(id.error());
    return {};
  });
  EXPECT_FALSE(refused);
}

// Someone with a copy of the store (a backup, a stolen disk) must not find a
// usable link in a message waiting to be sent: the outbox keeps subject and
// bodies sealed under a key derived from the signing key, never stored.
TEST_F(OutboxTest, MessagesRestSealedAndOnlyTheRightKeyOpensThem) {
  const std::string link = "https://auth.example.org/reset#token=Zm9vYmFyLXNlY3JldC10b2tlbi12YWx1ZQ";
  ASSERT_TRUE(store_->write([&](StoreTxn& txn) -> Result<void> {
    auto id = mail::Outbox::enqueue(txn, settings_, {"a@example.org", "Reset", "Open " + link, "<a>" + link + "</a>"},
                                    "password_reset", "alice", 100, 0);
    if (!id) return std::unexpected(id.error());
    return {};
  }));
  auto stored = read_value(*store_, [](StoreTxn& txn) { return txn.list_entries(mail::Outbox::kNamespace); });
  ASSERT_TRUE(stored);
  ASSERT_EQ(stored->size(), 1u);
  EXPECT_EQ(stored->front().second.find("Zm9vYmFy"), std::string::npos) << stored->front().second;
  EXPECT_EQ(stored->front().second.find("Reset"), std::string::npos);
  auto opened = mail::Outbox::open(settings_, stored->front().first, stored->front().second);
  ASSERT_TRUE(opened);
  EXPECT_EQ(opened->message.text, "Open " + link);

  MailSettings other = settings_;  // another signing key: the message cannot be opened, and is dropped
  other.outbox_key = crypto::SealKey::derive(crypto::Sha256Digest{}, "mail outbox");
  EXPECT_FALSE(mail::Outbox::open(other, stored->front().first, stored->front().second));
  mail::Outbox wrong(*store_, other);
  EXPECT_FALSE(*wrong.claim(100, 60s));
  EXPECT_EQ(*wrong.depth(), 0u);
}

TEST_F(OutboxTest, AnOlderVersionsClearEntryIsStillSent) {
  ASSERT_TRUE(store_->write([&](StoreTxn& txn) {
    return txn.put_entry(mail::Outbox::kNamespace, "0000000000000000000000aa",
                         R"({"kind":"test","username":"u","to":"a@example.org","subject":"s","text":"t","html":"",)"
                         R"("attempts":0,"due":100,"lease":0,"expires":0})",
                         0);
  }));
  mail::Outbox outbox(*store_, settings_);
  auto claimed = outbox.claim(100, 60s);
  ASSERT_TRUE(claimed && *claimed);
  EXPECT_EQ((*claimed)->message.text, "t");
  EXPECT_EQ((*claimed)->message.subject, "s");
}

TEST(MailDuration, ReadsNaturally) {
  EXPECT_EQ(describe_duration(1800), "30 minutes");
  EXPECT_EQ(describe_duration(3600), "1 hour");
  EXPECT_EQ(describe_duration(7 * 86400), "7 days");
  EXPECT_EQ(describe_duration(61), "61 seconds");
}

}  // namespace
}  // namespace authd

namespace authd {
namespace {

// docs/mail.md cannot drift from the settings table: every row is in its
// table with the declared default.
TEST(MailDocs, EverySettingIsDocumentedWithItsDefault) {
  const std::string doc = test::doc_text("mail.md");
  MailSettings settings;
  for (const auto& row : mail_settings(settings)) {
    const auto shown = row.show();
    const std::string expected =
        "| `" + row.name + "` | " + (shown.empty() ? std::string("(empty)") : "`" + shown + "`") + " |";
    EXPECT_NE(doc.find(expected), std::string::npos) << "docs/mail.md lacks the row " << expected;
  }
}

// Issue 41: mail crosses to the server in clear only on loopback or when
// the operator says so (smtp_allow_plaintext); a name is not loopback.
TEST(MailSettings, OnlyALoopbackServerTakesMailInClear) {
  for (const char* url : {"smtp://127.0.0.1:25", "smtp://127.8.9.10", "smtp://localhost:2525", "smtp://LOCALHOST",
                          "smtp://[::1]:25", "smtp://user@127.0.0.1:25/"}) {
    EXPECT_TRUE(mail::smtp_on_loopback(url)) << url;
  }
  for (const char* url : {"smtp://10.255.255.1:25", "smtp://127.attacker.example", "smtp://127.0.0.1.example",
                          "smtp://mail.localhost.example", "smtp://[::2]", "smtp://128.0.0.1", "smtp://127.0.0.256",
                          "smtp://127.0.0", "smtp://0127.0.0.1", "smtp://"}) {
    EXPECT_FALSE(mail::smtp_on_loopback(url)) << url;
  }
  MailSettings s;
  s.smtp_url = "smtp://mail.example.org:25";
  s.smtp_from = "noreply@example.org";
  s.public_url = "https://example.org";
  EXPECT_FALSE(mail::plaintext_allowed(s));
  s.smtp_starttls = "off";
  auto refused = finish_mail_settings(s);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, Errc::config);
  EXPECT_NE(refused.error().message.find("smtp_allow_plaintext"), std::string::npos);
  s.smtp_allow_plaintext = true;
  EXPECT_TRUE(mail::plaintext_allowed(s));
  EXPECT_TRUE(finish_mail_settings(s));
}

}  // namespace
}  // namespace authd
