#include "authd/email_verification.hpp"

#include "hourly_limit.hpp"
#include "mailed_link.hpp"
#include "authd/username_index.hpp"
#include "authd/crypto.hpp"
#include "authd/password_reset.hpp"

namespace authd {

Result<void> queue_notice(StoreTxn& txn, const MailSettings& settings, const mail::Templates& templates,
                          std::string_view kind, const User& user, std::string_view to, std::int64_t now,
                          std::string_view email, const std::map<std::string, std::string, std::less<>>& details) {
  if (!settings.enabled() || !mail::valid_address(to)) return {};
  std::map<std::string, std::string, std::less<>> values = {{"site", settings.public_url},
                                                            {"username", user.username},
                                                            {"email", std::string(email.empty() ? to : email)},
                                                            {"link", settings.public_url + "/forgot"}};
  values.insert(details.begin(), details.end());
  auto message = templates.render(kind, to, values);
  if (!message) return std::unexpected(message.error());
  auto queued = mail::Outbox::enqueue(txn, settings, *message, kind, user.username, now, 0);
  if (!queued) return std::unexpected(queued.error());
  return {};
}

bool notice_enabled(const MailSettings& settings, std::string_view kind) {
  if (kind == "password_changed") return settings.notify_password_changed;
  if (kind == "email_changed") return settings.notify_email_changed;
  if (kind == "mfa_added") return settings.notify_mfa_added;
  if (kind == "mfa_removed") return settings.notify_mfa_removed;
  if (kind == "new_device" || kind == "sign_in_pending") return settings.notify_new_device;
  return false;
}

Result<bool> send_notice(Store& store, const MailSettings& settings, const mail::Templates& templates,
                         std::string_view kind, const User& user, std::int64_t now,
                         const std::map<std::string, std::string, std::less<>>& details, std::string_view once_key) {
  if (!settings.enabled() || !notice_enabled(settings, kind) || !user.email_verified ||
      !mail::valid_address(user.email)) {
    return false;
  }
  bool queued = false;
  auto done = store.write([&](StoreTxn& txn) -> Result<void> {
    queued = false;
    if (!once_key.empty()) {
      const std::string prefix = "notice:" + std::string(kind) + ":" + user.id;
      auto first = count_hourly(txn, kMailLimits, prefix + ":" + crypto::to_hex(crypto::sha256(once_key)), 1, now);
      if (!first) return std::unexpected(first.error());
      if (!*first) return {};
      auto under = count_hourly(txn, kMailLimits, prefix, kNoticesPerHour, now);
      if (!under) return std::unexpected(under.error());
      if (!*under) return {};
    }
    if (auto ok = queue_notice(txn, settings, templates, kind, user, user.email, now, {}, details); !ok) return ok;
    queued = true;
    return {};
  });
  if (!done) return std::unexpected(done.error());
  return queued;
}

void tell_user(Store& store, const MailSettings& settings, const mail::Templates& templates, std::string_view kind,
               const User& user, std::int64_t now, Events& events,
               const std::map<std::string, std::string, std::less<>>& details, std::string_view once_key) {
  auto sent = send_notice(store, settings, templates, kind, user, now, details, once_key);
  if (!sent) {
    events.warning("cannot queue the " + std::string(kind) + " notice: " + sent.error().message);
  } else if (*sent) {
    events.mail_queued();
  }
}

// Counted against password_reset_address_limit (its own key, "verify:a:"):
// both routes mail whoever asks, and one setting bounds the two (docs say so).
Result<void> EmailVerification::admit_address(std::string_view address, std::int64_t now) {
  return admit_address_hourly(store_, "verify:a:", address, settings_.password_reset_address_limit, now,
                              "verification requests");
}

Result<MailOutcome> EmailVerification::send(const User& user, std::string_view address, std::int64_t now) {
  if (!settings_.enabled()) return MailOutcome::mail_off;
  if (!mail::valid_address(address)) return MailOutcome::no_email;
  if (address == user.email && user.email_verified) return MailOutcome::verified;
  const std::string token = crypto::random_token(mailed_link::kTokenBytes);
  const std::int64_t expires = now + settings_.email_verify_ttl.count();
  // The link leads to authd, which answers the page /verify.html (docs/mail.md).
  auto message = templates_.render("email_verify", address,
                                   {{"site", settings_.public_url},
                                    {"username", user.username},
                                    {"email", std::string(address)},
                                    {"link", settings_.public_url + "/email/verify?token=" + token},
                                    {"expires", describe_duration(settings_.email_verify_ttl.count())}});
  if (!message) return std::unexpected(message.error());
  bool queued = false;
  auto done = store_.write([&](StoreTxn& txn) -> Result<void> {
    const mailed_link::Pending pending{user.id, user.username, std::string(address), expires};
    auto mailed = mailed_link::store_and_queue(txn, kNamespace, token, pending, settings_, *message,
                                               "verify:u:" + user.id, settings_.email_verify_account_limit, now);
    if (!mailed) return std::unexpected(mailed.error());
    queued = *mailed;
    return {};
  });
  if (!done) return std::unexpected(done.error());
  if (!queued) return MailOutcome::limited;
  events_.mail_queued();
  return MailOutcome::queued;
}

Result<MailOutcome> EmailVerification::resend(std::string_view username, std::int64_t now,
                                              std::string& found_username) {
  auto user = username_index::find_user(store_, username);
  if (!user) {
    if (user.error().code == Errc::not_found) return MailOutcome::unknown;
    return std::unexpected(user.error());
  }
  found_username = user->username;
  if (user->email.empty()) return MailOutcome::no_email;
  return send(*user, user->email, now);
}

Result<EmailVerification::Verified> EmailVerification::verify(std::string_view token, std::int64_t now) {
  auto invalid = [] {
    return fail_field("token", "the verification link is unknown, used or expired: ask for a new one");
  };
  if (token.empty() || token.size() > 128) return invalid();
  const std::string key = mailed_link::key_of(token);
  Verified verified;
  bool valid = false;
  auto done = store_.write([&](StoreTxn& txn) -> Result<void> {
    valid = false;
    auto link = mailed_link::open(txn, kNamespace, key, now);
    if (!link) return std::unexpected(link.error());
    if (!*link) return {};
    const mailed_link::Pending& pending = (*link)->pending;
    User& user = (*link)->user;
    const bool change = user.email != pending.email;
    if (change) {
      // A change of address ends every reset and verification link of the
      // account, this one included (the old address's links are moot now).
      if (auto ok = end_pending_links(txn, user.id); !ok) return ok;
    } else {
      // This token, and every other one of the account for the same address.
      auto all = txn.list_entries(kNamespace);
      if (!all) return std::unexpected(all.error());
      for (const auto& [other, text] : *all) {
        const auto other_pending = mailed_link::parse(text);
        if (other == key ||
            (other_pending && other_pending->user_id == user.id && other_pending->email == pending.email)) {
          if (auto ok = txn.delete_entry(kNamespace, other); !ok) return ok;
        }
      }
    }
    verified.previous_email = change ? user.email : std::string();
    if (change || !user.email_verified) {
      user.email = pending.email;
      user.email_verified = true;
      user.version += 1;
      user.updated_at = now;
      if (auto ok = txn.replace_user(user); !ok) return ok;
    }
    if (change && !verified.previous_email.empty() && settings_.notify_email_changed) {
      if (auto ok = queue_notice(txn, settings_, templates_, "email_changed", user, verified.previous_email, now,
                                 user.email);
          !ok) {
        return ok;
      }
    }
    verified.user = user;
    valid = true;
    return {};
  });
  if (!done) return std::unexpected(done.error());
  if (!valid) return invalid();
  if (!verified.previous_email.empty() && settings_.notify_email_changed) events_.mail_queued();  // email_changed
  return verified;
}

Result<std::string> EmailVerification::pending_change(const User& user, std::int64_t now) {
  auto all = read_value(store_, [&](StoreTxn& txn) { return txn.list_entries(kNamespace); });
  if (!all) return std::unexpected(all.error());
  std::string newest;
  std::int64_t newest_expiry = 0;
  for (const auto& [key, text] : *all) {
    const auto pending = mailed_link::parse(text);
    if (pending && pending->user_id == user.id && pending->email != user.email && pending->expires > now &&
        pending->expires > newest_expiry) {
      newest = pending->email, newest_expiry = pending->expires;
    }
  }
  return newest;
}

}  // namespace authd
