#include "authd/throttle.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include <arpa/inet.h>

#include <cctype>

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

// Keys by the ASCII-lowercased name: "Alice" and "alice" share one count.
std::string folded(std::string_view text) {
  std::string out(text);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}
std::string user_key(std::string_view username) { return "u:" + folded(username); }
std::string budget_key(std::string_view username) { return "b:" + folded(username); }
std::string device_key(std::string_view device) { return "d:" + std::string(device); }
std::string address_key(std::string_view address) { return "a:" + address_group(address); }
std::string signup_key(std::string_view address) { return "s:" + address_group(address); }
// '|' is in no client id ("client_" and hex) and no address.
std::string client_key(std::string_view client_id, std::string_view address) {
  return "c:" + std::string(client_id) + "|" + address_group(address);
}

bool is_loopback(std::string_view address) {
  return address.starts_with("127.") || address == "::1" || address.starts_with("::ffff:127.") || address.empty();
}

constexpr std::int64_t kPurgeEvery = 300;

// A store that cannot answer: sign-in is refused for now, never let through.
Error closed(const Error& cause) {
  return Error::retry_later(Errc::unavailable, 5, "the sign-in throttle cannot use the store: " + cause.message);
}

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

Result<void> save(StoreTxn& txn, const std::string& key, const Counter& counter, const ThrottlePolicy& policy,
                  std::int64_t window = 0) {
  return txn.put_entry(kNamespace, key, encode(counter), std::max(expiry(counter, policy), counter.first + window));
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

std::string address_group(std::string_view address) {
  if (address.find(':') == std::string_view::npos || address.size() > 64) return std::string(address);
  const std::string copy(address);
  unsigned char bytes[16] = {};
  if (::inet_pton(AF_INET6, copy.c_str(), bytes) != 1) return std::string(address);
  static constexpr unsigned char kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  char text[INET6_ADDRSTRLEN] = {};
  if (std::equal(kMapped, kMapped + 12, bytes)) {  // ::ffff:a.b.c.d is IPv4
    ::inet_ntop(AF_INET, bytes + 12, text, sizeof text);
    return text;
  }
  std::fill(bytes + 8, bytes + 16, 0);
  ::inet_ntop(AF_INET6, bytes, text, sizeof text);
  return std::string(text) + "/64";
}

std::vector<settings::Setting> throttle_settings(ThrottlePolicy& p) {
  return settings::grouped("Sign-in throttling", {
      settings::boolean("signin_throttle", p.enabled,
                        "Throttle failed password sign-ins (SECURITY.md). Failures are counted per username and "
                        "per client address over signin_window; past a threshold each further failure imposes a "
                        "delay (signin_first_delay, then doubling, up to the maximum) during which attempts get 429 "
                        "with Retry-After. The state is in the store: every process sees it."),
      settings::integer("signin_user_threshold", p.user_threshold, 1, 100000,
                        "Failures per username (and per OpenID client and caller address at /token) within "
                        "signin_window before delays start."),
      settings::integer("signin_address_threshold", p.address_threshold, 1, 1000000,
                        "Failures per client address (IPv6: per /64) within signin_window before delays start."),
      settings::seconds("signin_window", p.window, 1, 7LL * 24 * 3600,
                        "The time over which failed sign-ins are counted, in seconds."),
      settings::seconds("signin_first_delay", p.first_delay, 1, 3600,
                        "The first delay past a threshold, in seconds; it doubles with each further failure."),
      settings::seconds("signin_user_max_delay", p.user_max_delay, 1, 24LL * 3600,
                        "The longest delay of a username (and of an OpenID client's caller at /token), in seconds."),
      settings::seconds("signin_address_max_delay", p.address_max_delay, 1, 24LL * 3600,
                        "The longest delay of a client address, in seconds."),
      settings::seconds("signin_known_address_ttl", p.known_address_ttl, 0, 366LL * 24 * 3600,
                        "A username's delay never applies to an address that signed in as that user within this "
                        "many seconds, so that an attacker cannot lock a real user out."),
      settings::integer("signin_account_budget", p.account_budget, 1, 100000,
                        "Clients with neither a device cookie nor a known address share a budget of this many "
                        "failures per account per signin_account_budget_window, from all addresses together."),
      settings::seconds("signin_account_budget_window", p.account_budget_window, 60, 7LL * 24 * 3600,
                        "The window of signin_account_budget, in seconds."),
      settings::seconds("signin_device_ttl", p.device_ttl, 60, 3660LL * 24 * 3600,
                        "Lifetime of the device cookie (`authd_device`, signed, HttpOnly) a successful sign-in "
                        "gives the browser, in seconds. With it that browser skips every delay above, counting its "
                        "own failures only."),
      settings::integer("signup_address_limit", p.signup_address_limit, 0, 1000000,
                        "Sign-ups per client address (IPv6: per /64) per hour; 0 = no limit."),
  });
}

Result<void> SigninThrottle::check(std::string_view username, std::string_view address, std::int64_t now,
                                  std::string_view device) const {
  if (!policy_.enabled) return {};
  Counter by_address, by_user, budget, by_device;
  auto read = store_.read([&](StoreTxn& txn) -> Result<void> {
    for (auto [key, counter] : {std::pair{address_key(address), &by_address}, std::pair{user_key(username), &by_user},
                                std::pair{budget_key(username), &budget}}) {
      auto loaded = load(txn, key);
      if (!loaded) return std::unexpected(loaded.error());
      *counter = std::move(*loaded);
    }
    if (!device.empty()) {
      auto loaded = load(txn, device_key(device));
      if (!loaded) return std::unexpected(loaded.error());
      by_device = std::move(*loaded);
    }
    return {};
  });
  if (!read) return fail(closed(read.error()));

  // The binding limit (the longest delay) is named in the answer: a 429
  // says which limit was hit. "mfa:<name>" keys count second-factor codes.
  const std::string attempts = username.starts_with("mfa:") ? "wrong second-factor codes" : "failed sign-ins";
  std::int64_t until = 0;
  std::string limit;
  const auto consider = [&](std::int64_t candidate, std::string what) {
    if (candidate > until) {
      until = candidate;
      limit = std::move(what);
    }
  };
  if (!device.empty()) {
    consider(by_device.until, "too many " + attempts + " from this browser");  // a known device: only its own failures count
  } else {
    consider(by_address.until, "too many " + attempts + " from this address");
    if (!is_known(by_user, address, now, policy_.known_address_ttl.count())) {
      consider(by_user.until, "too many " + attempts + " for this account");
      const auto window_end = budget.first + policy_.account_budget_window.count();
      if (budget.failures >= static_cast<std::int64_t>(policy_.account_budget) && window_end > now) {
        consider(window_end, "too many " + attempts + " for this account from unrecognised browsers");
      }
    }
  }
  if (until > now) return fail(Error::retry_later(Errc::throttled, until - now, limit));
  return {};
}

Result<void> SigninThrottle::count_failures(std::int64_t now,
                                            const std::function<Result<void>(const CountFailure&)>& count_each) {
  const bool purge_now = now - last_purge_.load(std::memory_order_relaxed) >= kPurgeEvery;
  auto written = store_.write([&](StoreTxn& txn) -> Result<void> {
    const CountFailure count = [&](const std::string& key, unsigned threshold, std::int64_t window,
                                   std::int64_t max_delay) -> Result<void> {
      auto counter = load(txn, key);
      if (!counter) return std::unexpected(counter.error());
      count_failure(*counter, now, threshold, window, policy_.first_delay.count(), max_delay);
      return save(txn, key, *counter, policy_, window);
    };
    if (auto counted = count_each(count); !counted) return counted;
    if (purge_now) {
      if (auto purged = txn.purge_expired(now); !purged) return std::unexpected(purged.error());
    }
    return {};
  });
  if (!written) return fail(closed(written.error()));
  if (purge_now) last_purge_.store(now, std::memory_order_relaxed);
  return {};
}

Result<void> SigninThrottle::record_failure(std::string_view username, std::string_view address, std::int64_t now,
                                           std::string_view device, std::string_view account_name) {
  if (!policy_.enabled) return {};
  const auto window = policy_.window.count();
  return count_failures(now, [&](const CountFailure& count) -> Result<void> {
    if (!device.empty()) {
      // A device cookie's failures lock out that device alone.
      if (auto ok = count(device_key(device), policy_.user_threshold, window, policy_.user_max_delay.count()); !ok) return ok;
    } else {
      const auto count_name = [&](std::string_view name) -> Result<void> {
        if (auto ok = count(user_key(name), policy_.user_threshold, window, policy_.user_max_delay.count()); !ok) return ok;
        // The account budget: counted, never delayed by itself (check() compares).
        return count(budget_key(name), 1u << 30, policy_.account_budget_window.count(), 0);
      };
      if (auto ok = count_name(username); !ok) return ok;
      if (!account_name.empty() && user_key(account_name) != user_key(username)) {
        if (auto ok = count_name(account_name); !ok) return ok;
      }
    }
    return count(address_key(address), policy_.address_threshold, window, policy_.address_max_delay.count());
  });
}

Result<void> SigninThrottle::admit_signup(std::string_view address, std::int64_t now) {
  if (!policy_.enabled || policy_.signup_address_limit == 0) return {};
  constexpr std::int64_t kHour = 3600;
  Result<void> verdict;
  auto written = store_.write([&](StoreTxn& txn) -> Result<void> {
    const auto key = signup_key(address);
    auto counter = load(txn, key);
    if (!counter) return std::unexpected(counter.error());
    if (counter->failures > 0 && now - counter->first >= kHour) *counter = Counter{};
    if (counter->failures >= static_cast<std::int64_t>(policy_.signup_address_limit)) {
      verdict = fail(Error::retry_later(Errc::throttled, counter->first + kHour - now, "too many sign-ups from this address"));
      return {};
    }
    if (counter->failures == 0) counter->first = now;
    counter->failures += 1;
    return txn.put_entry(kNamespace, key, encode(*counter), counter->first + kHour);
  });
  if (!written) return fail(closed(written.error()));
  return verdict;
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
    unchanged = by_user->failures == 0 && (fresh || is_loopback(address));
    return {};
  });
  if (!read) return read;
  if (unchanged) return {};
  return store_.write([&](StoreTxn& txn) -> Result<void> {
    auto by_user = load(txn, ukey);
    if (!by_user) return std::unexpected(by_user.error());
    by_user->failures = 0;
    by_user->until = 0;
    if (!is_loopback(address)) {
      std::erase_if(by_user->known, [&](const auto& entry) { return entry.first == address; });
      by_user->known.emplace(by_user->known.begin(), std::string(address), now);
    }
    if (by_user->known.size() > kMaxKnownAddresses) by_user->known.resize(kMaxKnownAddresses);
    return save(txn, ukey, *by_user, policy_);
  });
}

Result<void> SigninThrottle::check_client(std::string_view client_id, std::string_view address,
                                         std::int64_t now) const {
  if (!policy_.enabled) return {};
  Counter counter;
  auto read = store_.read([&](StoreTxn& txn) -> Result<void> {
    auto loaded = load(txn, client_key(client_id, address));
    if (!loaded) return std::unexpected(loaded.error());
    counter = std::move(*loaded);
    return {};
  });
  if (!read) return fail(closed(read.error()));
  if (counter.until > now) {
    return fail(Error::retry_later(Errc::throttled, counter.until - now,
                                   "too many failed client authentications from this address"));
  }
  return {};
}

Result<void> SigninThrottle::record_client_failure(std::string_view client_id, std::string_view address,
                                                  std::int64_t now) {
  if (!policy_.enabled) return {};
  return count_failures(now, [&](const CountFailure& count) {
    return count(client_key(client_id, address), policy_.user_threshold, policy_.window.count(),
                 policy_.user_max_delay.count());
  });
}

Result<void> SigninThrottle::record_client_success(std::string_view client_id, std::string_view address) {
  if (!policy_.enabled) return {};
  const auto key = client_key(client_id, address);
  bool counted = false;
  auto read = store_.read([&](StoreTxn& txn) -> Result<void> {
    auto entry = txn.get_entry(kNamespace, key);
    if (!entry) return std::unexpected(entry.error());
    counted = entry->has_value();
    return {};
  });
  if (!read) return read;
  if (!counted) return {};
  return store_.write([&](StoreTxn& txn) { return txn.delete_entry(kNamespace, key); });
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
