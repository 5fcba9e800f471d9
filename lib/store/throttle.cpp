#include "authd/throttle.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "store/lmdb_txn.hpp"

namespace authd {
namespace {

constexpr std::size_t kMaxKnownAddresses = 8;

struct Counter {
  std::int64_t failures = 0;
  std::int64_t first = 0;  // time of the first failure counted
  std::int64_t until = 0;  // no attempt accepted before this time
  std::vector<std::pair<std::string, std::int64_t>> known;  // address, last success
};

std::string user_key(std::string_view username) { return "u:" + std::string(username); }
std::string address_key(std::string_view address) { return "a:" + std::string(address); }

Counter decode(std::string_view bytes) {
  Counter counter;
  auto doc = Json::parse(bytes, 4);
  if (!doc || !doc->is_object()) return counter;
  counter.failures = doc->get_integer("failures").value_or(0);
  counter.first = doc->get_integer("first").value_or(0);
  counter.until = doc->get_integer("until").value_or(0);
  const Json known = doc->get("known");
  for (std::size_t i = 0; i < known.size(); ++i) {
    const Json entry = known.at(i);
    if (auto address = entry.get_string("address")) {
      counter.known.emplace_back(std::string(*address), entry.get_integer("at").value_or(0));
    }
  }
  return counter;
}

std::string encode(const Counter& counter) {
  Json doc = Json::object();
  doc.set("failures", Json::integer(counter.failures))
      .set("first", Json::integer(counter.first))
      .set("until", Json::integer(counter.until));
  if (!counter.known.empty()) {
    Json known = Json::array();
    for (const auto& [address, at] : counter.known) {
      Json entry = Json::object();
      entry.set("address", Json::string(address)).set("at", Json::integer(at));
      known.append(std::move(entry));
    }
    doc.set("known", std::move(known));
  }
  return doc.dump();
}

Result<Counter> load(const Txn& txn, MDB_dbi dbi, const std::string& key) {
  auto bytes = txn.get(dbi, key);
  if (bytes) return decode(*bytes);
  if (bytes.error().code == Errc::not_found) return Counter{};
  return std::unexpected(bytes.error());
}

bool is_known(const Counter& counter, std::string_view address, std::int64_t now, std::int64_t ttl) {
  return std::any_of(counter.known.begin(), counter.known.end(),
                     [&](const auto& entry) { return entry.first == address && now - entry.second < ttl; });
}

// One more failure: reset an old window, count, and set the delay when past the threshold.
void count_failure(Counter& counter, std::int64_t now, unsigned threshold, std::int64_t window, std::int64_t first_delay,
                   std::int64_t max_delay) {
  if (counter.failures > 0 && now - counter.first >= window) {
    counter.failures = 0;
    counter.until = 0;
  }
  if (counter.failures == 0) counter.first = now;
  counter.failures += 1;
  const auto excess = counter.failures - static_cast<std::int64_t>(threshold);
  if (excess > 0) {
    const std::int64_t delay =
        excess > 30 ? max_delay : std::min<std::int64_t>(first_delay << (excess - 1), max_delay);
    counter.until = now + delay;
  }
}

}  // namespace

Result<void> SigninThrottle::check(std::string_view username, std::string_view address, std::int64_t now) const {
  if (!policy_.enabled) return {};
  auto txn = Txn::begin(db_.impl().env, false);
  if (!txn) return std::unexpected(txn.error());
  auto by_address = load(*txn, db_.impl().throttle, address_key(address));
  if (!by_address) return std::unexpected(by_address.error());
  auto by_user = load(*txn, db_.impl().throttle, user_key(username));
  if (!by_user) return std::unexpected(by_user.error());

  std::int64_t until = by_address->until;
  if (!is_known(*by_user, address, now, policy_.known_address_ttl.count())) until = std::max(until, by_user->until);
  if (until > now) return fail(Error::retry_later(Errc::throttled, until - now, "sign-in delayed"));
  return {};
}

Result<void> SigninThrottle::record_failure(std::string_view username, std::string_view address, std::int64_t now) {
  if (!policy_.enabled) return {};
  auto txn = Txn::begin(db_.impl().env, true);
  if (!txn) return std::unexpected(txn.error());
  const MDB_dbi dbi = db_.impl().throttle;
  const auto ukey = user_key(username), akey = address_key(address);
  auto by_user = load(*txn, dbi, ukey);
  if (!by_user) return std::unexpected(by_user.error());
  auto by_address = load(*txn, dbi, akey);
  if (!by_address) return std::unexpected(by_address.error());
  const auto window = policy_.window.count(), first = policy_.first_delay.count();
  count_failure(*by_user, now, policy_.user_threshold, window, first, policy_.user_max_delay.count());
  count_failure(*by_address, now, policy_.address_threshold, window, first, policy_.address_max_delay.count());
  if (auto ok = txn->put(dbi, ukey, encode(*by_user)); !ok) return ok;
  if (auto ok = txn->put(dbi, akey, encode(*by_address)); !ok) return ok;
  return txn->commit();
}

Result<void> SigninThrottle::record_success(std::string_view username, std::string_view address, std::int64_t now) {
  if (!policy_.enabled) return {};
  const auto ukey = user_key(username);
  {
    // Most sign-ins change nothing: skip the write transaction then.
    auto txn = Txn::begin(db_.impl().env, false);
    if (!txn) return std::unexpected(txn.error());
    auto by_user = load(*txn, db_.impl().throttle, ukey);
    if (!by_user) return std::unexpected(by_user.error());
    const auto ttl = policy_.known_address_ttl.count();
    const bool fresh = std::any_of(by_user->known.begin(), by_user->known.end(), [&](const auto& entry) {
      return entry.first == address && now - entry.second < ttl / 2;
    });
    if (by_user->failures == 0 && fresh) return {};
  }
  auto txn = Txn::begin(db_.impl().env, true);
  if (!txn) return std::unexpected(txn.error());
  auto by_user = load(*txn, db_.impl().throttle, ukey);
  if (!by_user) return std::unexpected(by_user.error());
  by_user->failures = 0;
  by_user->until = 0;
  std::erase_if(by_user->known, [&](const auto& entry) { return entry.first == address; });
  by_user->known.emplace(by_user->known.begin(), std::string(address), now);
  if (by_user->known.size() > kMaxKnownAddresses) by_user->known.resize(kMaxKnownAddresses);
  if (auto ok = txn->put(db_.impl().throttle, ukey, encode(*by_user)); !ok) return ok;
  return txn->commit();
}

Result<std::size_t> SigninThrottle::purge(std::int64_t now) {
  auto txn = Txn::begin(db_.impl().env, true);
  if (!txn) return std::unexpected(txn.error());
  std::vector<std::string> stale;
  const auto window = policy_.window.count(), ttl = policy_.known_address_ttl.count();
  auto scanned = txn->for_each(db_.impl().throttle, [&](std::string_view key, std::string_view value) {
    const Counter counter = decode(value);
    const bool counting = counter.failures > 0 && now - counter.first < window;
    const bool delaying = counter.until > now;
    const bool remembering = std::any_of(counter.known.begin(), counter.known.end(),
                                         [&](const auto& entry) { return now - entry.second < ttl; });
    if (!counting && !delaying && !remembering) stale.emplace_back(key);
  });
  if (!scanned) return std::unexpected(scanned.error());
  for (const auto& key : stale) {
    if (auto ok = txn->del(db_.impl().throttle, key); !ok) return std::unexpected(ok.error());
  }
  if (auto ok = txn->commit(); !ok) return std::unexpected(ok.error());
  return stale.size();
}

}  // namespace authd
