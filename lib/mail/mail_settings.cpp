#include "authd/mail.hpp"

#include "authd/text.hpp"

namespace authd {

std::vector<settings::Setting> mail_settings(MailSettings& s) {
  auto starttls = settings::text("smtp_starttls", s.smtp_starttls,
                                 "STARTTLS on smtp:// URLs: auto (required with smtp_user or when the server is not "
                                 "on loopback, else used when offered), required, or off (only for a server on "
                                 "loopback, or with smtp_allow_plaintext).");
  starttls.kind = settings::Kind::choice;  // checked by finish_mail_settings
  starttls.choices = {"auto", "required", "off"};
  return settings::grouped("Mail", {
      settings::text("smtp_url", s.smtp_url,
                     "The mail server (docs/mail.md): smtp://host:587 (STARTTLS) or smtps://host:465. Empty = no "
                     "mail at all (a password reset by mail answers as usual but sends nothing). When set, "
                     "smtp_from and public_url are required."),
      settings::text("smtp_from", s.smtp_from,
                     "The From of every message: \"authd <noreply@example.org>\" or a bare address."),
      settings::text("smtp_user", s.smtp_user, "The SMTP AUTH user; empty = no AUTH."),
      settings::secret("smtp_password", s.smtp_password, "The SMTP AUTH password."),
      std::move(starttls),
      settings::boolean("smtp_allow_plaintext", s.smtp_allow_plaintext,
                        "Send mail in clear to a server that is not on loopback when it offers no STARTTLS (or "
                        "with smtp_starttls = off): reset and invitation links then cross the network readable "
                        "and changeable. Off: such mail stays in the outbox and the log says why."),
      settings::text("public_url", s.public_url,
                     "The site's address used in mailed links, e.g. https://example.org (a trailing / is "
                     "dropped)."),
      settings::path("mail_templates", s.templates,
                     "A directory of mail templates an operator edits (<name>.subject, .txt, .html; copy "
                     "conf/mail/); empty = the built-in ones."),
      settings::seconds("mail_retry_max", s.retry_max, 1, 86400,
                        "The longest wait between two attempts at one message, in seconds."),
      settings::seconds("mail_message_ttl", s.message_ttl, 60, 30 * 86400,
                        "A message the mail server has not accepted after this many seconds is dropped."),
      settings::seconds("password_reset_ttl", s.password_reset_ttl, 60, 7 * 86400,
                        "Lifetime of a password reset link, in seconds."),
      settings::integer("password_reset_account_limit", s.password_reset_account_limit, 1, 1000,
                        "Password reset mails per account per hour."),
      settings::integer("password_reset_address_limit", s.password_reset_address_limit, 0, 1000000,
                        "POST /password/forgot requests per client address per hour, and POST /email/verify/resend "
                        "requests (counted apart) alike; 0 = no limit."),
      settings::milliseconds("password_forgot_time", s.password_forgot_time, 0, 10000,
                             "Every POST /password/forgot answer takes at least this long, in milliseconds: no "
                             "account enumeration by timing."),
      settings::seconds("email_verify_ttl", s.email_verify_ttl, 60, 30 * 86400,
                        "Lifetime of an email verification link, in seconds."),
      settings::integer("email_verify_account_limit", s.email_verify_account_limit, 1, 1000,
                        "Verification mails per account per hour (sign-up, resend, address change)."),
      settings::boolean("require_verified_email", s.require_verified_email,
                        "Refuse sign-in (403 Email Not Verified) while the account's email is not verified. "
                        "Accounts without an email are not refused: they have nothing to verify."),
      settings::boolean("notify_password_changed", s.notify_password_changed,
                        "Mail the verified address when the password is changed or reset."),
      settings::boolean("notify_email_changed", s.notify_email_changed,
                        "Mail the old address when a new one replaced it."),
      settings::boolean("notify_mfa_added", s.notify_mfa_added,
                        "Mail the verified address when a second factor is added."),
      settings::boolean("notify_mfa_removed", s.notify_mfa_removed,
                        "Mail the verified address when a second factor is removed."),
      settings::boolean("notify_new_device", s.notify_new_device,
                        "Mail the verified address when the account signs in (password, passkey, second "
                        "factor) from a browser without its device cookie: time, address and User-Agent."),
  });
}

Result<void> finish_mail_settings(MailSettings& s) {
  while (!s.public_url.empty() && s.public_url.back() == '/') s.public_url.pop_back();
  if (s.smtp_starttls != "auto" && s.smtp_starttls != "required" && s.smtp_starttls != "off") {
    return fail(Errc::config, "smtp_starttls must be auto, required or off");
  }
  if (s.smtp_url.empty()) return {};
  if (!s.smtp_url.starts_with("smtp://") && !s.smtp_url.starts_with("smtps://")) {
    return fail(Errc::config, "smtp_url must start with smtp:// or smtps://");
  }
  if (s.smtp_starttls == "off" && s.smtp_url.starts_with("smtp://") && !mail::plaintext_allowed(s)) {
    return fail(Errc::config, "smtp_starttls = off sends mail in clear to " + s.smtp_url +
                                  ", which is not on loopback: use STARTTLS (auto or required) or smtps://, or "
                                  "set smtp_allow_plaintext = true to accept mail readable on the network");
  }
  if (!mail::parse_mailbox(s.smtp_from)) {
    return fail(Errc::config, "smtp_from must be an address or \"Name <address>\" when smtp_url is set");
  }
  if (!s.public_url.starts_with("https://") && !s.public_url.starts_with("http://")) {
    return fail(Errc::config, "public_url (http:// or https://) is needed for the links in mail when smtp_url is set");
  }
  return {};
}

namespace mail {

bool smtp_on_loopback(std::string_view url) {
  const auto scheme = url.find("://");
  if (scheme == std::string_view::npos) return false;
  std::string_view rest = url.substr(scheme + 3);
  rest = rest.substr(0, rest.find_first_of("/?#"));
  if (const auto at = rest.rfind('@'); at != std::string_view::npos) rest.remove_prefix(at + 1);  // user@host
  std::string_view host;
  if (rest.starts_with('[')) {
    const auto close = rest.find(']');
    if (close == std::string_view::npos) return false;
    host = rest.substr(1, close - 1);
    return host == "::1";
  }
  host = rest.substr(0, rest.find(':'));
  if (text::iequals(host, "localhost")) return true;  // RFC 6761 §6.3; libcurl resolves it to loopback itself
  // A literal 127.a.b.c, four decimal octets: a name that resolves to 127.0.0.1 does not count.
  int octets = 0;
  std::size_t i = 0;
  bool first_is_127 = false;
  while (i <= host.size()) {
    std::size_t j = i;
    unsigned value = 0;
    while (j < host.size() && host[j] >= '0' && host[j] <= '9' && j - i < 3) value = value * 10 + (host[j++] - '0');
    if (j == i || value > 255) return false;
    if (octets == 0) first_is_127 = value == 127;
    ++octets;
    if (j == host.size()) break;
    if (host[j] != '.') return false;
    i = j + 1;
  }
  return octets == 4 && first_is_127;
}

bool plaintext_allowed(const MailSettings& settings) {
  return settings.smtp_allow_plaintext || smtp_on_loopback(settings.smtp_url);
}

}  // namespace mail
}  // namespace authd
