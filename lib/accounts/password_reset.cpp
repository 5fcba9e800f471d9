#include "authd/password_reset.hpp"

#include "hourly_limit.hpp"
#include "mailed_link.hpp"
#include "authd/username_index.hpp"
#include "authd/crypto.hpp"
#include "authd/email_verification.hpp"
#include "authd/text.hpp"

namespace authd {
namespace {

constexpr std::size_t kMaxAccountsPerEmail = 10;

}  // namespace

Result<void> end_pending_links(StoreTxn& txn, std::string_view user_id) {
  if (user_id.empty()) return {};
  for (const std::string_view space : {PasswordReset::kNamespace, EmailVerification::kNamespace}) {
    auto all = txn.list_entries(space);
    if (!all) return std::unexpected(all.error());
    for (const auto& [key, text] : *all) {
      // A malformed entry is nobody's link: dropped too.
      if (const auto pending = mailed_link::parse(text); pending && pending->user_id != user_id) continue;
      if (auto ok = txn.delete_entry(space, key); !ok) return ok;
    }
  }
  return {};
}

std::string describe_duration(std::int64_t seconds) {
  auto plural = [](std::int64_t n, std::string_view unit) {
    return std::to_string(n) + " " + std::string(unit) + (n == 1 ? "" : "s");
  };
  if (seconds % 86400 == 0) return plural(seconds / 86400, "day");
  if (seconds % 3600 == 0) return plural(seconds / 3600, "hour");
  if (seconds % 60 == 0) return plural(seconds / 60, "minute");
  return plural(seconds, "second");
}

Result<void> PasswordReset::admit_address(std::string_view address, std::int64_t now) {
  return admit_address_hourly(store_, "forgot:a:", address, settings_.password_reset_address_limit, now,
                              "password reset requests");
}

Result<MailOutcome> PasswordReset::request(std::string_view username, std::string_view email, std::int64_t now,
                                           std::string& found_username) {
  if (!settings_.enabled()) return MailOutcome::mail_off;
  // The accounts meant: by name (canonical form), or every one with this email.
  std::vector<User> accounts;
  auto looked = store_.read([&](StoreTxn& txn) -> Result<void> {
    if (!username.empty()) {
      auto user = username_index::find_user(txn, username);
      if (user) accounts.push_back(std::move(*user));
      else if (user.error().code != Errc::not_found) return std::unexpected(user.error());
      return {};
    }
    if (email.empty()) return {};  // "" would mean every user to the store
    // The store's email index, not a scan of every user: this route is open
    // to anyone. Its answer is checked again, the same on every backend.
    UserQuery query;
    query.email = std::string(email);
    query.limit = kMaxAccountsPerEmail;
    auto page = txn.list_users(query);
    if (!page) return std::unexpected(page.error());
    for (auto& user : page->users) {
      if (accounts.size() < kMaxAccountsPerEmail && text::iequals(user.email, email)) accounts.push_back(std::move(user));
    }
    return {};
  });
  if (!looked) return std::unexpected(looked.error());
  if (accounts.empty()) return MailOutcome::unknown;
  MailOutcome outcome = MailOutcome::no_email;
  for (const User& user : accounts) {
    found_username = user.username;
    // A directory user's password is the directory's: no link to mail.
    if (!mail::valid_address(user.email) || is_directory_user(user)) continue;
    const std::string token = crypto::random_token(mailed_link::kTokenBytes);
    const std::int64_t expires = now + settings_.password_reset_ttl.count();
    auto message = templates_.render("password_reset", user.email,
                                     {{"site", settings_.public_url},
                                      {"username", user.username},
                                      {"link", settings_.public_url + "/reset#token=" + token},
                                      {"expires", describe_duration(settings_.password_reset_ttl.count())}});
    if (!message) return std::unexpected(message.error());
    auto done = store_.write([&](StoreTxn& txn) -> Result<void> {
      auto mailed = mailed_link::store_and_queue(txn, kNamespace, token, {user.id, user.username, user.email, expires},
                                                 settings_, *message, "forgot:u:" + user.id,
                                                 settings_.password_reset_account_limit, now);
      if (!mailed) return std::unexpected(mailed.error());
      outcome = *mailed ? MailOutcome::queued : MailOutcome::limited;
      return {};
    });
    if (!done) return std::unexpected(done.error());
    if (outcome == MailOutcome::queued) events_.mail_queued();
  }
  return outcome;
}

Result<User> PasswordReset::reset(std::string_view token, std::string_view new_password, std::int64_t now) {
  auto invalid = [] { return fail_field("token", "the reset link is unknown, used or expired: ask for a new one"); };
  if (token.empty() || token.size() > 128) return invalid();
  if (auto ok = validate_password(new_password, accounts_.policy()); !ok) {
    return fail_field("new_password", ok.error().message);
  }
  const std::string key = mailed_link::key_of(token);
  // Cheap check first, so an unknown token costs no hashing.
  auto known = read_value(store_, [&](StoreTxn& txn) { return txn.get_entry(kNamespace, key); });
  if (!known) return std::unexpected(known.error());
  if (!*known) return invalid();
  auto hash = hasher_.hash(new_password);
  if (!hash) return std::unexpected(hash.error());
  User changed;
  bool valid = false;
  auto done = store_.write([&](StoreTxn& txn) -> Result<void> {
    valid = false;
    auto link = mailed_link::open(txn, kNamespace, key, now);  // unknown (used meanwhile), expired or moot: refused
    if (!link) return std::unexpected(link.error());
    if (!*link) return {};
    User& user = (*link)->user;
    if (is_directory_user(user)) return fail(Errc::conflict, std::string(kDirectoryManagesPassword));
    // Mailed to an address the account no longer has: that mailbox is no
    // longer the account's to speak for (the change ended it anyway).
    if (user.email.empty() || (*link)->pending.email != user.email) return txn.delete_entry(kNamespace, key);
    // Every reset and verification link of this account ends here, this one included.
    if (auto ok = end_pending_links(txn, user.id); !ok) return ok;
    user.password_hash = *hash;
    user.version += 1;
    user.updated_at = now;
    user.token_generation += 1;
    // The link reached the account's address: that verifies it.
    user.email_verified = true;
    changed = user;
    valid = true;
    return txn.replace_user(user);
  });
  if (!done) return std::unexpected(done.error());
  if (!valid) return invalid();
  return changed;
}

}  // namespace authd
