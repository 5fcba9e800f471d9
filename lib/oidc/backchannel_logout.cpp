// Back-channel logout (authd/backchannel_logout.hpp): the RP-session records,
// the logout token, the outbox, and the hook that queues logouts when
// sessions end. An outbox entry is JSON
//   {"client_id","sub","sid","iss","attempts","due","lease","queued","give_up"}
// keyed by a time-ordered object id; the store drops it a day after its
// give-up time (the sender normally deletes it first, and audits that).
#include "authd/backchannel_logout.hpp"

#include <algorithm>

#include "authd/crypto.hpp"
#include "authd/oidc_clients.hpp"
#include "authd/refresh.hpp"

namespace authd {
namespace {

constexpr std::string_view kRpSessionPrefix = "oidc_rp_session:";
constexpr std::int64_t kKeepAfterGiveUp = 24 * 3600;

std::string rp_ns(std::string_view user_id) { return std::string(kRpSessionPrefix) + std::string(user_id); }

std::string text(const Json& json, std::string_view name) { return std::string(json.get_string(name).value_or("")); }

struct Entry {
  QueuedLogout logout;
  std::int64_t due = 0;
  std::int64_t lease = 0;
};

std::string encode(const Entry& entry) {
  Json json = Json::object();
  json.set("client_id", Json::string(entry.logout.client_id))
      .set("sub", Json::string(entry.logout.subject))
      .set("sid", Json::string(entry.logout.sid))
      .set("iss", Json::string(entry.logout.issuer))
      .set("attempts", Json::integer(entry.logout.attempts))
      .set("due", Json::integer(entry.due))
      .set("lease", Json::integer(entry.lease))
      .set("queued", Json::integer(entry.logout.queued_at))
      .set("give_up", Json::integer(entry.logout.give_up_at));
  return json.dump();
}

std::optional<Entry> decode(std::string_view id, std::string_view value) {
  auto json = Json::parse(value);
  if (!json || !json->is_object()) return std::nullopt;
  Entry entry;
  entry.logout.id = std::string(id);
  entry.logout.client_id = text(*json, "client_id");
  entry.logout.subject = text(*json, "sub");
  entry.logout.sid = text(*json, "sid");
  entry.logout.issuer = text(*json, "iss");
  entry.logout.attempts = json->get_integer("attempts").value_or(0);
  entry.logout.queued_at = json->get_integer("queued").value_or(0);
  entry.logout.give_up_at = json->get_integer("give_up").value_or(0);
  entry.due = json->get_integer("due").value_or(0);
  entry.lease = json->get_integer("lease").value_or(0);
  if (entry.logout.client_id.empty() || entry.logout.subject.empty()) return std::nullopt;
  return entry;
}

bool given_up(const Entry& entry, std::int64_t now) { return entry.logout.give_up_at > 0 && entry.logout.give_up_at <= now; }

}  // namespace

std::string session_id_of(std::string_view handle) {
  const auto digest = crypto::sha256("authd sid\n" + std::string(handle));
  return crypto::base64url_encode(std::span<const unsigned char>(digest.data(), 16));
}

std::string session_handle_of(const TokenClaims& claims) {
  const auto family = claims.extra.find(kRefreshFamilyClaim);
  if (family != claims.extra.end() && !family->second.empty()) return family->second;
  return claims.token_id;
}

Result<void> record_rp_session(StoreTxn& txn, std::string_view user_id, std::string_view client_id,
                               std::string_view sid, std::string_view issuer, std::int64_t expires_at) {
  if (user_id.empty() || client_id.empty() || sid.empty()) return {};
  auto client = find_client(txn, client_id);
  if (!client) return std::unexpected(client.error());
  if (!*client || (*client)->backchannel_logout_uri.empty()) return {};
  Json value = Json::object();
  value.set("client_id", Json::string(client_id)).set("sid", Json::string(sid)).set("iss", Json::string(issuer));
  return txn.put_entry(rp_ns(user_id), std::string(client_id) + " " + std::string(sid), value.dump(), expires_at);
}

Result<std::string> sign_logout_token(KeyRing& ring, const LogoutToken& token, std::int64_t now) {
  const auto keys = ring.keys(KeyRing::Check::always, now);
  const auto key = keys->by_kid.find(keys->current);
  if (key == keys->by_kid.end()) return fail(Errc::unavailable, "no ID-token key loaded yet (the key store is unreachable)");
  Json header = Json::object();
  header.set("alg", Json::string(crypto::jws_algorithm(ring.algorithm())))
      .set("typ", Json::string("logout+jwt"))
      .set("kid", Json::string(keys->current));
  Json events = Json::object();
  events.set(kBackchannelLogoutEvent, Json::object());
  Json payload = Json::object();
  payload.set("iss", Json::string(token.issuer))
      .set("aud", Json::string(token.audience))
      .set("iat", Json::integer(now))
      .set("exp", Json::integer(now + kLogoutTokenTtl))
      .set("jti", Json::string(token.jti.empty() ? crypto::random_token(16) : token.jti))
      .set("events", std::move(events));
  if (!token.subject.empty()) payload.set("sub", Json::string(token.subject));
  if (!token.sid.empty()) payload.set("sid", Json::string(token.sid));
  std::string signed_token = crypto::base64url_encode(header.dump()) + "." + crypto::base64url_encode(payload.dump());
  const auto signature = key->second.sign(signed_token);
  if (signature.empty()) return fail(Errc::internal, "logout-token signature failed");
  return signed_token + "." + crypto::base64url_encode(signature);
}

Result<std::string> LogoutOutbox::enqueue(StoreTxn& txn, const QueuedLogout& logout, std::int64_t now) {
  Entry entry;
  entry.logout = logout;
  entry.logout.id = new_object_id();
  entry.logout.attempts = 0;
  entry.logout.queued_at = now;
  entry.due = now;
  const std::int64_t keep = logout.give_up_at > 0 ? logout.give_up_at + kKeepAfterGiveUp : 0;
  if (auto ok = txn.put_entry(kNamespace, entry.logout.id, encode(entry), keep); !ok) return std::unexpected(ok.error());
  return entry.logout.id;
}

Result<std::optional<QueuedLogout>> LogoutOutbox::claim(std::int64_t now, std::chrono::seconds lease,
                                                        std::vector<QueuedLogout>* gave_up) {
  if (gave_up) gave_up->clear();
  // An idle sender polls: a read transaction first, so that an empty or
  // waiting outbox costs no write transaction.
  auto anything = read_value(store_, [&](StoreTxn& txn) -> Result<bool> {
    auto entries = txn.list_entries(kNamespace);
    if (!entries) return std::unexpected(entries.error());
    return std::ranges::any_of(*entries, [&](const auto& item) {
      const auto entry = decode(item.first, item.second);
      return !entry || given_up(*entry, now) || (entry->due <= now && entry->lease <= now);
    });
  });
  if (!anything) return std::unexpected(anything.error());
  if (!*anything) return std::optional<QueuedLogout>();
  std::optional<QueuedLogout> claimed;
  std::vector<QueuedLogout> dropped;
  auto done = store_.write([&](StoreTxn& txn) -> Result<void> {
    claimed.reset();  // the work may run again after a serialization failure
    dropped.clear();
    auto entries = txn.list_entries(kNamespace);
    if (!entries) return std::unexpected(entries.error());
    for (const auto& [id, value] : *entries) {  // key order: oldest first
      auto entry = decode(id, value);
      if (!entry || given_up(*entry, now)) {
        if (auto gone = txn.delete_entry(kNamespace, id); !gone) return gone;
        if (entry) dropped.push_back(entry->logout);
        continue;
      }
      if (entry->due > now || entry->lease > now) continue;
      entry->lease = now + lease.count();
      const std::int64_t keep = entry->logout.give_up_at > 0 ? entry->logout.give_up_at + kKeepAfterGiveUp : 0;
      if (auto ok = txn.put_entry(kNamespace, id, encode(*entry), keep); !ok) return ok;
      claimed = entry->logout;
      return {};
    }
    return {};
  });
  if (!done) return std::unexpected(done.error());
  if (gave_up) *gave_up = std::move(dropped);
  return claimed;
}

Result<void> LogoutOutbox::done(const QueuedLogout& logout) {
  return store_.write([&](StoreTxn& txn) { return txn.delete_entry(kNamespace, logout.id); });
}

Result<void> LogoutOutbox::failed(const QueuedLogout& logout, std::int64_t now) {
  return store_.write([&](StoreTxn& txn) -> Result<void> {
    auto value = txn.get_entry(kNamespace, logout.id);
    if (!value) return std::unexpected(value.error());
    if (!*value) return {};
    auto entry = decode(logout.id, **value);
    if (!entry) return txn.delete_entry(kNamespace, logout.id);
    entry->logout.attempts += 1;
    const std::int64_t shift = std::min<std::int64_t>(entry->logout.attempts, 20);
    entry->due = now + std::min<std::int64_t>(std::int64_t{1} << shift, std::max<std::int64_t>(retry_max_.count(), 1));
    entry->lease = 0;
    const std::int64_t keep = entry->logout.give_up_at > 0 ? entry->logout.give_up_at + kKeepAfterGiveUp : 0;
    return txn.put_entry(kNamespace, logout.id, encode(*entry), keep);
  });
}

Result<std::size_t> LogoutOutbox::depth() {
  return read_value(store_, [](StoreTxn& txn) -> Result<std::size_t> {
    auto entries = txn.list_entries(kNamespace);
    if (!entries) return std::unexpected(entries.error());
    return entries->size();
  });
}

Result<std::size_t> BackchannelLogout::ending(StoreTxn& txn, const EndedSessions& ended, std::int64_t now) {
  if (ended.user_id.empty()) return 0;
  const std::string ns = rp_ns(ended.user_id);
  auto sessions = txn.list_entries(ns);
  if (!sessions) return std::unexpected(sessions.error());
  if (sessions->empty()) return 0;
  const std::string sid = ended.scope == EndedSessions::Scope::session ? session_id_of(ended.id) : std::string();
  std::size_t queued = 0;
  for (const auto& [key, value] : *sessions) {
    auto session = Json::parse(value);
    if (!session || !session->is_object()) {
      if (auto gone = txn.delete_entry(ns, key); !gone) return std::unexpected(gone.error());
      continue;
    }
    QueuedLogout logout;
    logout.client_id = text(*session, "client_id");
    logout.subject = std::string(ended.user_id);
    logout.sid = text(*session, "sid");
    logout.issuer = text(*session, "iss");
    logout.give_up_at = now + policy_.give_up.count();
    if ((ended.scope == EndedSessions::Scope::session && logout.sid != sid) ||
        (ended.scope == EndedSessions::Scope::client && logout.client_id != ended.id)) {
      continue;
    }
    if (auto gone = txn.delete_entry(ns, key); !gone) return std::unexpected(gone.error());
    auto client = find_client(txn, logout.client_id);
    if (!client) return std::unexpected(client.error());
    if (!*client || (*client)->backchannel_logout_uri.empty()) continue;  // removed, or no longer asks
    if (auto put = LogoutOutbox::enqueue(txn, logout, now); !put) return std::unexpected(put.error());
    ++queued;
  }
  return queued;
}

void BackchannelLogout::ended(std::size_t queued) {
  if (queued > 0) events_.logout_queued();
}

}  // namespace authd
