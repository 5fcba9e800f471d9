#include "authd/throttle.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "authd/json.hpp"

namespace authd {
namespace {

constexpr std::size_t kMaxKnownAddresses = 8;

struct Counter {
  std::int64_t failures = 0;
  std::int64_t first = 0;  // time of the first failure counted
  std::int64_t until = 0;  // no attempt accepted before this time
  std::vector<std::pair<std::string, std::int64_t>> known;  // address, last success
};

constexpr std::string_view kNamespace = "throttle";

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

Result<Counter> load(StoreTxn& txn, const std::string& key) {
  auto bytes = txn.get_entry(kNamespace, key);
  if (!bytes) return std::unexpected(bytes.error());
  return *bytes ? decode(**bytes) : Counter{};
}

// The time after which a counter says nothing any more: its window, its
// delay and every remembered address are over.
std::int64_t expiry(const Counter& counter, const ThrottlePolicy& policy) {
  std::int64_t at = std::max(counter.first + policy.window.count(), counter.until);
  for (const auto& entry : counter.known) at = std::max(at, entry.second + policy.known_address_ttl.count());
  return std::max<std::int64_t>(at, 1);
}

Result<void> save(StoreTxn& txn, const std::string& key, const Counter& counter, const ThrottlePolicy& policy) {
  return txn.put_entry(kNamespace, key, encode(counter), expiry(counter, policy));
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

std::vector<settings::Setting> throttle_settings(ThrottlePolicy& p) {
  return {
      settings::boolean("signin_throttle", p.enabled, "throttle failed password sign-ins"),
      settings::integer("signin_user_threshold", p.user_threshold, 1, 100000,
                        "failures per username within the window before delays start"),
      settings::integer("signin_address_threshold", p.address_threshold, 1, 1000000,
                        "failures per client address within the window before delays start"),
      settings::seconds("signin_window", p.window, 1, 7LL * 24 * 3600, "seconds over which failures are counted"),
      settings::seconds("signin_first_delay", p.first_delay, 1, 3600, "first delay, doubled per further failure"),
      settings::seconds("signin_user_max_delay", p.user_max_delay, 1, 24LL * 3600, "cap of a username's delay"),
      settings::seconds("signin_address_max_delay", p.address_max_delay, 1, 24LL * 3600,
                        "cap of an address's delay"),
      settings::seconds("signin_known_address_ttl", p.known_address_ttl, 0, 366LL * 24 * 3600,
                        "how long an address that signed in stays exempt from the username's delay"),
  };
}

Result<void> SigninThrottle::check(std::string_view username, std::string_view address, std::int64_t now) const {
  if (!policy_.enabled) return {};
  Counter by_address, by_user;
  auto read = store_.read([&](StoreTxn& txn) -> Result<void> {
    auto a = load(txn, address_key(address));
    if (!a) return std::unexpected(a.error());
    auto u = load(txn, user_key(username));
    if (!u) return std::unexpected(u.error());
    by_address = std::move(*a);
    by_user = std::move(*u);
    return {};
  });
  if (!read) return read;

  std::int64_t until = by_address.until;
  if (!is_known(by_user, address, now, policy_.known_address_ttl.count())) until = std::max(until, by_user.until);
  if (until > now) return fail(Error::retry_later(Errc::throttled, until - now, "sign-in delayed"));
  return {};
}

Result<void> SigninThrottle::record_failure(std::string_view username, std::string_view address, std::int64_t now) {
  if (!policy_.enabled) return {};
  return store_.write([&](StoreTxn& txn) -> Result<void> {
    const auto ukey = user_key(username), akey = address_key(address);
    auto by_user = load(txn, ukey);
    if (!by_user) return std::unexpected(by_user.error());
    auto by_address = load(txn, akey);
    if (!by_address) return std::unexpected(by_address.error());
    const auto window = policy_.window.count(), first = policy_.first_delay.count();
    count_failure(*by_user, now, policy_.user_threshold, window, first, policy_.user_max_delay.count());
    count_failure(*by_address, now, policy_.address_threshold, window, first, policy_.address_max_delay.count());
    if (auto ok = save(txn, ukey, *by_user, policy_); !ok) return ok;
    return save(txn, akey, *by_address, policy_);
  });
}

Result<void> SigninThrottle::record_success(std::string_view username, std::string_view address, std::int64_t now) {
  if (!policy_.enabled) return {};
  const auto ukey = user_key(username);
  const auto ttl = policy_.known_address_ttl.count();
  // Most sign-ins change nothing: skip the write transaction then.
  bool unchanged = false;
  auto read = store_.read([&](StoreTxn& txn) -> Result<void> {
    auto by_user = load(txn, ukey);
    if (!by_user) return std::unexpected(by_user.error());
    const bool fresh = std::any_of(by_user->known.begin(), by_user->known.end(), [&](const auto& entry) {
      return entry.first == address && now - entry.second < ttl / 2;
    });
    unchanged = by_user->failures == 0 && fresh;
    return {};
  });
  if (!read) return read;
  if (unchanged) return {};
  return store_.write([&](StoreTxn& txn) -> Result<void> {
    auto by_user = load(txn, ukey);
    if (!by_user) return std::unexpected(by_user.error());
    by_user->failures = 0;
    by_user->until = 0;
    std::erase_if(by_user->known, [&](const auto& entry) { return entry.first == address; });
    by_user->known.emplace(by_user->known.begin(), std::string(address), now);
    if (by_user->known.size() > kMaxKnownAddresses) by_user->known.resize(kMaxKnownAddresses);
    return save(txn, ukey, *by_user, policy_);
  });
}

Result<std::size_t> SigninThrottle::purge(std::int64_t now) {
  std::size_t purged = 0;
  auto done = store_.write([&](StoreTxn& txn) -> Result<void> {
    auto n = txn.purge_expired(now);
    if (!n) return std::unexpected(n.error());
    purged = *n;
    return {};
  });
  if (!done) return std::unexpected(done.error());
  return purged;
}

}  // namespace authd
