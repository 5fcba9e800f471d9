// Outgoing mail: message building (lib/mail/message.cpp), the templates an
// operator may edit (templates.cpp), the SMTP client over libcurl
// (smtp_client.cpp, the only file of lib/mail that includes libcurl) and the
// durable outbox in the store (outbox.cpp).
//
// A feature that mails someone writes the message into the outbox in the
// same write transaction as whatever the message carries (a reset token),
// so either both exist or neither. A background sender (src/serving/mail_sender.cpp)
// claims messages, hands them to the SMTP server, and deletes each one the
// server accepted; a refusal or an outage only delays it (retry, backoff).
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "authd/error.hpp"
#include "authd/events.hpp"
#include "authd/seal.hpp"
#include "authd/settings.hpp"
#include "authd/store.hpp"

namespace authd {

struct MailSettings {
  std::string smtp_url;       // smtp://host:587, smtps://host:465; "" = no mail is sent (nor queued)
  std::string smtp_from;      // the From address: "authd <noreply@example.com>" or a bare address
  std::string smtp_user;      // AUTH; "" = none
  std::string smtp_password;  // secret
  std::string smtp_starttls = "auto";  // auto (required with smtp_user or off loopback, else when offered), required, off
  // Mail in clear to a server not on loopback (no STARTTLS offered, or
  // smtp_starttls = off). Off: such mail waits in the outbox (docs/mail.md).
  bool smtp_allow_plaintext = false;
  std::string public_url;     // the site's address in links: https://example.com (no trailing /)
  std::filesystem::path templates;  // mail_templates: a directory of operator templates; "" = built in
  std::chrono::seconds retry_max{3600};     // longest wait between two attempts at one message
  std::chrono::seconds message_ttl{3 * 86400};  // a message not accepted by then is dropped
  std::chrono::seconds password_reset_ttl{1800};
  unsigned password_reset_account_limit = 5;   // reset mails per account per hour
  unsigned password_reset_address_limit = 30;  // reset, and verification, requests per address per hour
  std::chrono::milliseconds password_forgot_time{300};  // every /password/forgot answer takes this long
  std::chrono::seconds email_verify_ttl{48 * 3600};  // lifetime of a verification link
  unsigned email_verify_account_limit = 5;          // verification mails per account per hour
  bool require_verified_email = false;              // sign-in refused (403) while the account's email is unverified
  // Security notices to the account's verified address, each one switchable.
  bool notify_password_changed = true;  // PUT /me/password, POST /password/reset
  bool notify_email_changed = true;     // to the old address, once a new one is verified
  bool notify_mfa_added = true;         // a TOTP or passkey added
  bool notify_mfa_removed = true;       // a TOTP or passkey removed
  bool notify_new_device = true;        // a sign-in from a browser without the user's device cookie
  bool enabled() const noexcept { return !smtp_url.empty(); }
  // Not a setting: derived from the HMAC signing key when the core opens.
  // The outbox seals its messages (their links) with it (authd/seal.hpp).
  crypto::SealKey outbox_key;
};

// smtp_url, smtp_from, smtp_user, smtp_password, smtp_starttls, public_url, mail_templates, ...
std::vector<settings::Setting> mail_settings(MailSettings& settings);
// Checks across them (from and public_url set when smtp_url is). Error: config.
Result<void> finish_mail_settings(MailSettings& settings);

// What became of a request to mail a link (a password reset, an address
// verification), for the audit log only (never for the client): its reason
// texts are to_string's.
enum class MailOutcome {
  queued,    // "queued": in the outbox
  mail_off,  // "mail off": no smtp_url
  no_email,  // "no email": no address we send to
  verified,  // "verified": the address is verified already, nothing to do
  limited,   // "limited": the account's hourly limit refused it
  unknown,   // "unknown": no such account
};
constexpr std::string_view to_string(MailOutcome outcome) noexcept {
  switch (outcome) {
    case MailOutcome::queued: return "queued";
    case MailOutcome::mail_off: return "mail off";
    case MailOutcome::no_email: return "no email";
    case MailOutcome::verified: return "verified";
    case MailOutcome::limited: return "limited";
    case MailOutcome::unknown: return "unknown";
  }
  return "unknown";
}

namespace mail {

// The host of `url` (smtp://host:port) is loopback: localhost, a literal
// 127.0.0.0/8 address or [::1]. Any other name counts as the network.
bool smtp_on_loopback(std::string_view url);
// Mail may cross to the server in clear: it is on loopback, or the operator
// said smtp_allow_plaintext.
bool plaintext_allowed(const MailSettings& settings);

// --- message building (RFC 5322, RFC 2045-2047) ---------------------------

// An addr-spec we are willing to send to: local@domain, printable ASCII, no
// spaces, quotes, angle brackets, commas or control characters, at most 254 bytes.
bool valid_address(std::string_view address) noexcept;

struct Mailbox {
  std::string name;     // display name, any UTF-8 ("" = none)
  std::string address;  // addr-spec
};
// Parses "Name <local@domain>" or "local@domain". nullopt when malformed.
std::optional<Mailbox> parse_mailbox(std::string_view text);
// The header form: "local@domain", or "\"Name\" <local@domain>" with an RFC
// 2047 encoded-word for a non-ASCII name.
std::string format_mailbox(const Mailbox& mailbox);

// An unstructured header value (Subject) as is when plain printable ASCII,
// else as RFC 2047 B encoded-words ("=?UTF-8?B?...?="), each at most 75
// characters, split on UTF-8 character boundaries, folded with CRLF SP.
std::string encode_header_text(std::string_view text);

struct Message {
  std::string to;       // addr-spec
  std::string subject;  // UTF-8
  std::string text;     // UTF-8 plain-text part
  std::string html;     // UTF-8 HTML part ("" = text only)
};

// The whole message as sent: Date, From, To, Subject, Message-ID
// (<random@domain of the From address>), MIME-Version, and a
// multipart/alternative body (text then HTML), each part UTF-8 in base64,
// every line ending in CRLF.
std::string build(const Message& message, const Mailbox& from, std::int64_t now);

// "Wed, 25 Nov 2026 22:30:00 +0000" (RFC 5322 §3.3).
std::string rfc5322_date(std::int64_t unix_seconds);

// --- templates ------------------------------------------------------------

// A template is three texts: subject, plain text, HTML; placeholders
// {{name}} are replaced by the values (HTML-escaped in the HTML part).
// Operators edit them in `mail_templates` (conf/mail/<name>.subject,
// <name>.txt, <name>.html); a missing file takes the built-in text.
class Templates {
 public:
  // Loads every known template from `directory` ("" = built-in only).
  // Error: config (unreadable file, unknown {{placeholder}}).
  static Result<Templates> load(const std::filesystem::path& directory);
  // Names: password_reset, email_verify, invitation, password_changed, email_changed,
  // mfa_added, mfa_removed, new_device.
  static const std::vector<std::string>& names();

  // The message for `name` to `to`. Unknown name: internal.
  Result<Message> render(std::string_view name, std::string_view to,
                         const std::map<std::string, std::string, std::less<>>& values) const;

 private:
  struct Parts {
    std::string subject, text, html;
  };
  std::map<std::string, Parts, std::less<>> parts_;
};

// --- SMTP -----------------------------------------------------------------

// Error kinds of a send: unavailable (cannot connect, timed out, a 4xx
// answer: try again later), upstream_failed (a 5xx answer: refused),
// not_permitted (TLS is required, see plaintext_allowed, and the server
// offered no STARTTLS: nothing was sent, an operator must act).
class SmtpClient {
 public:
  explicit SmtpClient(const MailSettings& settings) : settings_(settings) {}
  Result<void> send(const Mailbox& from, std::string_view to, std::string_view data) const;

 private:
  const MailSettings& settings_;
};

// --- outbox ---------------------------------------------------------------

struct Queued {
  std::string id;  // the entry key
  std::string kind;  // template name, for metrics and audit
  std::string username;  // for audit ("" when none)
  Message message;
  std::int64_t attempts = 0;
};

// The outbox: entries in the store's "mail_outbox" namespace, one per
// message. Claiming is a read-modify-write in one write transaction (LMDB:
// one writer at a time; PostgreSQL: SERIALIZABLE, so of two nodes claiming
// the same message one commits and the other retries and sees the lease),
// hence each message goes to one sender at a time.
class Outbox {
 public:
  static constexpr std::string_view kNamespace = "mail_outbox";

  Outbox(Store& store, const MailSettings& settings) : store_(store), settings_(settings) {}

  // Inside the caller's write transaction. `expires_at` (0 = message_ttl
  // from now): a message that is useless later (a reset link) ends with it.
  // Subject and bodies are stored sealed with `settings.outbox_key`: a copy
  // of the store holds no usable link.
  static Result<std::string> enqueue(StoreTxn& txn, const MailSettings& settings, const Message& message,
                                     std::string_view kind, std::string_view username, std::int64_t now,
                                     std::int64_t expires_at);

  // The oldest message due and not leased, now leased to the caller for `lease`.
  // A message that cannot be opened (sealed under another signing key) is
  // dropped, as an unreadable one is.
  Result<std::optional<Queued>> claim(std::int64_t now, std::chrono::seconds lease);
  // Accepted by the server: gone.
  Result<void> sent(const Queued& message);
  // Not accepted: the next attempt after a backoff (2^attempts seconds, at most retry_max).
  Result<void> failed(const Queued& message, std::int64_t now);
  // Messages waiting.
  Result<std::size_t> depth();
  // Messages claim() dropped because they could not be opened (sealed under
  // another signing key: a node whose signing key differs from the one that
  // queued them), since this Outbox was made; the sender logs them.
  std::uint64_t dropped_unopenable() const noexcept { return dropped_unopenable_; }
  // One stored entry (`id`, `value` as list_entries gives them), opened with
  // `settings.outbox_key`; nullopt when unreadable or sealed under another key.
  static std::optional<Queued> open(const MailSettings& settings, std::string_view id, std::string_view value);

 private:
  Store& store_;
  const MailSettings& settings_;
  std::uint64_t dropped_unopenable_ = 0;
};

}  // namespace mail
}  // namespace authd
