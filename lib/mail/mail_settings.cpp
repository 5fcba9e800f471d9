#include "authd/mail.hpp"

namespace authd {

std::vector<settings::Setting> mail_settings(MailSettings& s) {
  return {
      settings::text("smtp_url", s.smtp_url,
                     "mail server: smtp://host:587 (STARTTLS) or smtps://host:465; empty = no mail at all"),
      settings::text("smtp_from", s.smtp_from, "From of every message: \"Name <address>\" or an address"),
      settings::text("smtp_user", s.smtp_user, "SMTP AUTH user; empty = no AUTH"),
      settings::secret("smtp_password", s.smtp_password, "SMTP AUTH password"),
      settings::text("smtp_starttls", s.smtp_starttls,
                     "smtp:// only: auto (required with smtp_user, else used when offered), required, off"),
      settings::text("public_url", s.public_url, "the site's address in mailed links, e.g. https://example.com"),
      settings::path("mail_templates", s.templates,
                     "directory of mail templates (<name>.subject/.txt/.html, see conf/mail/); empty = built in"),
      settings::seconds("mail_retry_max", s.retry_max, 1, 86400, "longest wait between two attempts at one message"),
      settings::seconds("mail_message_ttl", s.message_ttl, 60, 30 * 86400,
                        "a message the mail server has not accepted by then is dropped"),
      settings::seconds("password_reset_ttl", s.password_reset_ttl, 60, 7 * 86400,
                        "lifetime of a password reset link"),
      settings::integer("password_reset_account_limit", s.password_reset_account_limit, 1, 1000,
                        "reset mails per account per hour"),
      settings::integer("password_reset_address_limit", s.password_reset_address_limit, 0, 1000000,
                        "POST /password/forgot per client address per hour (0: no limit)"),
      settings::milliseconds("password_forgot_time", s.password_forgot_time, 0, 10000,
                             "every POST /password/forgot answer takes at least this long (no enumeration by timing)"),
      settings::seconds("email_verify_ttl", s.email_verify_ttl, 60, 30 * 86400, "lifetime of an email verification link"),
      settings::integer("email_verify_account_limit", s.email_verify_account_limit, 1, 1000,
                        "verification mails per account per hour (sign-up, resend, address change)"),
      settings::boolean("require_verified_email", s.require_verified_email,
                        "refuse sign-in (403 Email Not Verified) while the account's email is not verified"),
      settings::boolean("notify_password_changed", s.notify_password_changed,
                        "mail the verified address when the password is changed or reset"),
      settings::boolean("notify_email_changed", s.notify_email_changed,
                        "mail the old address when a new one replaced it"),
      settings::boolean("notify_mfa_added", s.notify_mfa_added,
                        "mail the verified address when a second factor is added"),
      settings::boolean("notify_mfa_removed", s.notify_mfa_removed,
                        "mail the verified address when a second factor is removed"),
  };
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
  if (!mail::parse_mailbox(s.smtp_from)) {
    return fail(Errc::config, "smtp_from must be an address or \"Name <address>\" when smtp_url is set");
  }
  if (!s.public_url.starts_with("https://") && !s.public_url.starts_with("http://")) {
    return fail(Errc::config, "public_url (http:// or https://) is needed for the links in mail when smtp_url is set");
  }
  return {};
}

}  // namespace authd
