// The durable outbox: one store entry per message, JSON
//   {"kind","username","to","sealed","attempts","due","lease","expires"}
// keyed by a time-ordered object id, expiring with the message. "sealed" is
// base64url of {"subject","text","html"} sealed (AES-256-GCM, bound to the
// id) with MailSettings::outbox_key, so the links a message carries (reset,
// verification, invitation) never rest usable in the store. An entry of an
// older version holds "subject","text","html" in clear: it is still sent.
#include <algorithm>

#include "authd/crypto.hpp"
#include "authd/json.hpp"
#include "authd/mail.hpp"

namespace authd::mail {
namespace {

struct Entry {
  Queued queued;           // message.to always; subject and bodies once opened
  std::string sealed;      // base64url; "" for an older version's clear entry
  std::int64_t due = 0;    // not before (backoff)
  std::int64_t lease = 0;  // claimed by a sender until then
  std::int64_t expires_at = 0;
};

std::string encode(const Entry& entry) {
  Json json = Json::object();
  json.set("kind", Json::string(entry.queued.kind))
      .set("username", Json::string(entry.queued.username))
      .set("to", Json::string(entry.queued.message.to));
  if (entry.sealed.empty()) {  // an older version's entry stays as it was
    json.set("subject", Json::string(entry.queued.message.subject))
        .set("text", Json::string(entry.queued.message.text))
        .set("html", Json::string(entry.queued.message.html));
  } else {
    json.set("sealed", Json::string(entry.sealed));
  }
  json.set("attempts", Json::integer(entry.queued.attempts))
      .set("due", Json::integer(entry.due))
      .set("lease", Json::integer(entry.lease))
      .set("expires", Json::integer(entry.expires_at));
  return json.dump();
}

// The entry's bookkeeping; its content stays sealed (see open_content).
std::optional<Entry> decode(std::string_view id, std::string_view text) {
  auto json = Json::parse(text);
  if (!json || !json->is_object()) return std::nullopt;
  Entry entry;
  entry.queued.id = std::string(id);
  auto str = [&](std::string_view key) { return std::string(json->get_string(key).value_or("")); };
  entry.queued.kind = str("kind");
  entry.queued.username = str("username");
  entry.sealed = str("sealed");
  entry.queued.message = Message{str("to"), str("subject"), str("text"), str("html")};
  entry.queued.attempts = json->get_integer("attempts").value_or(0);
  entry.due = json->get_integer("due").value_or(0);
  entry.lease = json->get_integer("lease").value_or(0);
  entry.expires_at = json->get_integer("expires").value_or(0);
  return entry;
}

// Fills in subject and bodies from the sealed content; false when it cannot
// be opened (another signing key, damaged).
bool open_content(Entry& entry, const crypto::SealKey& key) {
  if (entry.sealed.empty()) return true;
  const auto raw = crypto::base64url_decode(entry.sealed);
  if (!raw) return false;
  auto plain = key.open(*raw, entry.queued.id);
  if (!plain) return false;
  auto content = Json::parse(*plain);
  crypto::wipe(plain->data(), plain->size());
  if (!content || !content->is_object()) return false;
  auto str = [&](std::string_view name) { return std::string(content->get_string(name).value_or("")); };
  entry.queued.message.subject = str("subject");
  entry.queued.message.text = str("text");
  entry.queued.message.html = str("html");
  return true;
}

}  // namespace

Result<std::string> Outbox::enqueue(StoreTxn& txn, const MailSettings& settings, const Message& message,
                                    std::string_view kind, std::string_view username, std::int64_t now,
                                    std::int64_t expires_at) {
  if (!valid_address(message.to)) return fail_field("email", "not a usable email address");
  Entry entry;
  entry.queued.id = new_object_id();
  entry.queued.kind = std::string(kind);
  entry.queued.username = std::string(username);
  entry.queued.message.to = message.to;
  Json content = Json::object();
  content.set("subject", Json::string(message.subject))
      .set("text", Json::string(message.text))
      .set("html", Json::string(message.html));
  std::string plain = content.dump();
  auto sealed = settings.outbox_key.seal(plain, entry.queued.id);
  crypto::wipe(plain.data(), plain.size());
  if (!sealed) return std::unexpected(sealed.error());
  entry.sealed = crypto::base64url_encode(*sealed);
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
  std::uint64_t unopenable = 0;
  auto done = store_.write([&](StoreTxn& txn) -> Result<void> {
    claimed.reset();  // the work may run again after a serialization failure
    unopenable = 0;
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
      if (!open_content(*entry, settings_.outbox_key)) {  // never sendable by this node's key
        if (auto gone = txn.delete_entry(kNamespace, id); !gone) return gone;
        ++unopenable;
        continue;
      }
      entry->lease = now + lease.count();
      if (auto ok = txn.put_entry(kNamespace, id, encode(*entry), entry->expires_at); !ok) return ok;
      claimed = entry->queued;
      return {};
    }
    return {};
  });
  if (!done) return std::unexpected(done.error());
  dropped_unopenable_ += unopenable;
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

std::optional<Queued> Outbox::open(const MailSettings& settings, std::string_view id, std::string_view value) {
  auto entry = decode(id, value);
  if (!entry || !open_content(*entry, settings.outbox_key)) return std::nullopt;
  return std::move(entry->queued);
}

Result<std::size_t> Outbox::depth() {
  return read_value(store_, [](StoreTxn& txn) -> Result<std::size_t> {
    auto entries = txn.list_entries(kNamespace);
    if (!entries) return std::unexpected(entries.error());
    return entries->size();
  });
}

}  // namespace authd::mail
