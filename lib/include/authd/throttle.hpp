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
#pragma once

#include <chrono>
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
};

// signin_throttle, signin_user_threshold, ... (the policy above).
std::vector<settings::Setting> throttle_settings(ThrottlePolicy& policy);

class SigninThrottle {
 public:
  SigninThrottle(Store& store, ThrottlePolicy policy) : store_(store), policy_(policy) {}

  // Error too_many_requests (message: whole seconds to wait, at least 1) when
  // the username or the address is in a delay; internal on storage failure.
  Result<void> check(std::string_view username, std::string_view address, std::int64_t now) const;
  Result<void> record_failure(std::string_view username, std::string_view address, std::int64_t now);
  Result<void> record_success(std::string_view username, std::string_view address, std::int64_t now);
  // Deletes counters (and any other store entries) that have expired. Returns how many.
  Result<std::size_t> purge(std::int64_t now);

  const ThrottlePolicy& policy() const noexcept { return policy_; }

 private:
  Store& store_;
  ThrottlePolicy policy_;
};

}  // namespace authd
