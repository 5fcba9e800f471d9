#include "mailed_link.hpp"

#include "hourly_limit.hpp"
#include "authd/crypto.hpp"
#include "authd/json.hpp"

namespace authd::mailed_link {

std::string key_of(std::string_view token) { return crypto::to_hex(crypto::sha256(token)); }

std::optional<Pending> parse(std::string_view text) {
  auto value = Json::parse(text);
  if (!value || !value->is_object()) return std::nullopt;
  return Pending{std::string(value->get_string("user").value_or("")),
                 std::string(value->get_string("username").value_or("")),
                 std::string(value->get_string("email").value_or("")), value->get_integer("exp").value_or(0)};
}

Result<bool> store_and_queue(StoreTxn& txn, std::string_view kind, std::string_view token, const Pending& pending,
                             const MailSettings& settings, const mail::Message& message, std::string_view counter,
                             unsigned hourly_limit, std::int64_t now) {
  auto counted = count_hourly(txn, kMailLimits, counter, hourly_limit, now);
  if (!counted) return std::unexpected(counted.error());
  if (!*counted) return false;
  Json value = Json::object();
  value.set("user", Json::string(pending.user_id))
      .set("username", Json::string(pending.username))
      .set("email", Json::string(pending.email))
      .set("exp", Json::integer(pending.expires));
  if (auto ok = txn.put_entry(kind, key_of(token), value.dump(), pending.expires); !ok) {
    return std::unexpected(ok.error());
  }
  auto queued = mail::Outbox::enqueue(txn, settings, message, kind, pending.username, now, pending.expires);
  if (!queued) return std::unexpected(queued.error());
  return true;
}

Result<std::optional<Redeemable>> open(StoreTxn& txn, std::string_view kind, std::string_view key, std::int64_t now) {
  auto drop = [&]() -> Result<std::optional<Redeemable>> {
    if (auto ok = txn.delete_entry(kind, key); !ok) return std::unexpected(ok.error());
    return std::nullopt;
  };
  auto entry = txn.get_entry(kind, key);
  if (!entry) return std::unexpected(entry.error());
  if (!*entry) return std::nullopt;  // unknown or used
  auto pending = parse(**entry);
  // Malformed, or expired but not yet purged: refuse (and drop it).
  if (!pending || pending->expires <= now) return drop();
  auto user = txn.find_user(pending->username);
  if (!user) {
    if (user.error().code == Errc::not_found) return drop();
    return std::unexpected(user.error());
  }
  if (user->id != pending->user_id) return drop();  // the name now belongs to another account
  return Redeemable{std::move(*pending), std::move(*user)};
}

}  // namespace authd::mailed_link
