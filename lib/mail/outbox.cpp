// The durable outbox: one store entry per message, JSON
//   {"kind","username","to","subject","text","html","attempts","due","lease"}
// keyed by a time-ordered object id, expiring with the message.
#include <algorithm>

#include "authd/json.hpp"
#include "authd/mail.hpp"

namespace authd::mail {
namespace {

struct Entry {
  Queued queued;
  std::int64_t due = 0;    // not before (backoff)
  std::int64_t lease = 0;  // claimed by a sender until then
  std::int64_t expires_at = 0;
};

std::string encode(const Entry& entry) {
  Json json = Json::object();
  json.set("kind", Json::string(entry.queued.kind))
      .set("username", Json::string(entry.queued.username))
      .set("to", Json::string(entry.queued.message.to))
      .set("subject", Json::string(entry.queued.message.subject))
      .set("text", Json::string(entry.queued.message.text))
      .set("html", Json::string(entry.queued.message.html))
      .set("attempts", Json::integer(entry.queued.attempts))
      .set("due", Json::integer(entry.due))
      .set("lease", Json::integer(entry.lease))
      .set("expires", Json::integer(entry.expires_at));
  return json.dump();
}

std::optional<Entry> decode(std::string_view id, std::string_view text) {
  auto json = Json::parse(text);
  if (!json || !json->is_object()) return std::nullopt;
  Entry entry;
  entry.queued.id = std::string(id);
  auto str = [&](std::string_view key) { return std::string(json->get_string(key).value_or("")); };
  entry.queued.kind = str("kind");
  entry.queued.username = str("username");
  entry.queued.message = Message{str("to"), str("subject"), str("text"), str("html")};
  entry.queued.attempts = json->get_integer("attempts").value_or(0);
  entry.due = json->get_integer("due").value_or(0);
  entry.lease = json->get_integer("lease").value_or(0);
  entry.expires_at = json->get_integer("expires").value_or(0);
  return entry;
}

}  // namespace

Result<std::string> Outbox::enqueue(StoreTxn& txn, const Message& message, std::string_view kind,
                                    std::string_view username, std::int64_t now, std::int64_t expires_at) {
  if (!valid_address(message.to)) return fail_field("email", "not a usable email address");
  Entry entry;
  entry.queued.id = new_object_id();
  entry.queued.kind = std::string(kind);
  entry.queued.username = std::string(username);
  entry.queued.message = message;
  entry.due = now;
  entry.expires_at = expires_at;
  if (auto ok = txn.put_entry(kNamespace, entry.queued.id, encode(entry), expires_at); !ok) {
    return std::unexpected(ok.error());
  }
  return entry.queued.id;
}

Result<std::optional<Queued>> Outbox::claim(std::int64_t now, std::chrono::seconds lease) {
  // Idle senders poll: look in a read transaction first, so that an empty
  // or waiting outbox costs no write transaction.
  auto anything = read_value(store_, [&](StoreTxn& txn) -> Result<bool> {
    auto entries = txn.list_entries(kNamespace);
    if (!entries) return std::unexpected(entries.error());
    for (const auto& [id, value] : *entries) {
      auto entry = decode(id, value);
      if (!entry || (entry->expires_at > 0 && entry->expires_at <= now) || (entry->due <= now && entry->lease <= now)) {
        return true;
      }
    }
    return false;
  });
  if (!anything) return std::unexpected(anything.error());
  if (!*anything) return std::optional<Queued>();
  std::optional<Queued> claimed;
  auto done = store_.write([&](StoreTxn& txn) -> Result<void> {
    claimed.reset();  // the work may run again after a serialization failure
    auto entries = txn.list_entries(kNamespace);
    if (!entries) return std::unexpected(entries.error());
    for (const auto& [id, value] : *entries) {  // key order: oldest first
      auto entry = decode(id, value);
      if (!entry) {  // unreadable: never sendable, do not let it block the queue
        if (auto gone = txn.delete_entry(kNamespace, id); !gone) return gone;
        continue;
      }
      if (entry->expires_at > 0 && entry->expires_at <= now) {
        if (auto gone = txn.delete_entry(kNamespace, id); !gone) return gone;
        continue;
      }
      if (entry->due > now || entry->lease > now) continue;
      entry->lease = now + lease.count();
      if (auto ok = txn.put_entry(kNamespace, id, encode(*entry), entry->expires_at); !ok) return ok;
      claimed = entry->queued;
      return {};
    }
    return {};
  });
  if (!done) return std::unexpected(done.error());
  return claimed;
}

Result<void> Outbox::sent(const Queued& message) {
  return store_.write([&](StoreTxn& txn) { return txn.delete_entry(kNamespace, message.id); });
}

Result<void> Outbox::failed(const Queued& message, std::int64_t now) {
  return store_.write([&](StoreTxn& txn) -> Result<void> {
    auto value = txn.get_entry(kNamespace, message.id);
    if (!value) return std::unexpected(value.error());
    if (!*value) return {};
    auto entry = decode(message.id, **value);
    if (!entry) return txn.delete_entry(kNamespace, message.id);
    entry->queued.attempts += 1;
    const std::int64_t shift = std::min<std::int64_t>(entry->queued.attempts, 20);
    entry->due = now + std::min<std::int64_t>(std::int64_t{1} << shift, settings_.retry_max.count());
    entry->lease = 0;
    return txn.put_entry(kNamespace, message.id, encode(*entry), entry->expires_at);
  });
}

Result<std::size_t> Outbox::depth() {
  return read_value(store_, [](StoreTxn& txn) -> Result<std::size_t> {
    auto entries = txn.list_entries(kNamespace);
    if (!entries) return std::unexpected(entries.error());
    return entries->size();
  });
}

}  // namespace authd::mail
