// Brute-force throttling of password sign-in, shared by every process on one
// store (counters are entries in the store's "throttle" namespace).
//
// Policy (defaults in ThrottlePolicy, all configurable):
//  - Failed sign-ins are counted per username and per client address; a count
//    starts afresh once its first failure is older than `window`.
//  - Past `user_threshold` failures for a username, or `address_threshold` for
//    an address, each further failure imposes a delay: first_delay, then
//    twice that, and so on, capped at user_max_delay / address_max_delay. During a delay, attempts
//    are refused with 429 and Retry-After, without any password check.
//  - Unknown usernames are counted like real ones (no enumeration).
//  - A username's delay never applies to an address that signed in
//    successfully as that user within `known_address_ttl`: an attacker
//    elsewhere cannot lock a real user out. The address delay still applies.
//  - A successful sign-in clears the username's count (not the address's).
//  - Lock-out abuse (OWASP "device cookies"): a successful sign-in gives the
//    browser a signed device cookie (src/api/session/signin.cpp). A client with a
//    valid device cookie for the username skips the username's delay, the
//    account budget and the address delay: the user's correct password from a
//    known device always works. Its failures count on that device alone.
//  - Untrusted clients (no device cookie, not a known address) share a strict
//    per-account budget: at most `account_budget` failures per
//    `account_budget_window` from all addresses together; past it they wait
//    for the window to end.
//  - Addresses are grouped: an IPv6 client counts as its /64, since one
//    host owns the whole /64; a loopback address (a local proxy not listed in
//    trusted_proxies) never becomes a known address.
//  - Counters expire (store entries with expires_at) and are purged every
//    few minutes; a store that cannot answer or record makes sign-in fail
//    closed (unavailable, 503), never open.
//  - Sign-ups are counted per address group: at most `signup_address_limit`
//    per hour (0: no limit).
//  - OpenID clients authenticating at /token (check_client ...): failures are
//    counted per client AND address group, never per client alone, so that
//    nobody who knows a (public) client id can lock the client out for its
//    other callers; past `user_threshold` they delay that caller alone (up to
//    user_max_delay), and the caller's success clears its count.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <string>
#include <cstdint>
#include <string_view>

#include "authd/error.hpp"
#include "authd/settings.hpp"
#include "authd/store.hpp"

namespace authd {

struct ThrottlePolicy {
  bool enabled = true;
  unsigned user_threshold = 10;
  unsigned address_threshold = 100;
  std::chrono::seconds window{900};
  std::chrono::seconds first_delay{1};
  std::chrono::seconds user_max_delay{60};
  std::chrono::seconds address_max_delay{900};
  std::chrono::seconds known_address_ttl{30 * 24 * 3600};
  unsigned account_budget = 100;
  std::chrono::seconds account_budget_window{3600};
  std::chrono::seconds device_ttl{180LL * 24 * 3600};
  unsigned signup_address_limit = 20;
};

// The throttle's key of `username`'s second-factor attempts: counted apart
// from password failures (a right password must not reset them); ':' cannot
// occur in a username. The sign-in and a factor change share it.
inline std::string second_factor_throttle_key(std::string_view username) { return "mfa:" + std::string(username); }

// The throttle's unit of an address: IPv4 as is, IPv6 as its /64
// ("2001:db8:1:2::/64"), anything else as is.
std::string address_group(std::string_view address);

// signin_throttle, signin_user_threshold, ... (the policy above).
std::vector<settings::Setting> throttle_settings(ThrottlePolicy& policy);

class SigninThrottle {
 public:
  SigninThrottle(Store& store, ThrottlePolicy policy) : store_(store), policy_(policy) {}

  // Error too_many_requests (message: whole seconds to wait, at least 1) when
  // the username or the address is in a delay; internal on storage failure.
  // `device`: an identifier of a valid device cookie for this username
  // ("" when the client has none).
  Result<void> check(std::string_view username, std::string_view address, std::int64_t now,
                     std::string_view device = {}) const;
  // `account_name`: the account's own name when `username` is another of
  // its names (a directory user's userPrincipalName for its sAMAccountName):
  // the failure counts for both, so that no name gives a guesser attempts of
  // its own ("" or the same name: counted once).
  Result<void> record_failure(std::string_view username, std::string_view address, std::int64_t now,
                              std::string_view device = {}, std::string_view account_name = {});
  Result<void> record_success(std::string_view username, std::string_view address, std::int64_t now);
  // One more sign-up from `address`; throttled past signup_address_limit
  // per hour, unavailable when the store cannot count.
  Result<void> admit_signup(std::string_view address, std::int64_t now);
  // An OpenID client's authentication at /token from `address`: the same
  // errors as check / record_failure, for that client and address only.
  Result<void> check_client(std::string_view client_id, std::string_view address, std::int64_t now) const;
  Result<void> record_client_failure(std::string_view client_id, std::string_view address, std::int64_t now);
  // Clears the count of this client and address (a write only when there is one).
  Result<void> record_client_success(std::string_view client_id, std::string_view address);
  // Deletes counters (and any other store entries) that have expired. Returns how many.
  Result<std::size_t> purge(std::int64_t now);

  const ThrottlePolicy& policy() const noexcept { return policy_; }

 private:
  // Adds one failure to the counter `key` (threshold, window and longest delay its own).
  using CountFailure = std::function<Result<void>(const std::string& key, unsigned threshold, std::int64_t window,
                                                  std::int64_t max_delay)>;
  // One write transaction in which `count_each` counts a failure on each of
  // its counters; expired entries are purged at most every few minutes.
  // Errors: as record_failure.
  Result<void> count_failures(std::int64_t now, const std::function<Result<void>(const CountFailure&)>& count_each);

  Store& store_;
  ThrottlePolicy policy_;
  std::atomic<std::int64_t> last_purge_{0};
};

}  // namespace authd
