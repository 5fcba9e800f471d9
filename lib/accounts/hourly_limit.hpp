// Internal to lib/accounts/: the hourly counters that bound the mails one
// client address or one account can ask for (password reset, email
// verification), kept as store entries in the namespace "mail_limits".
#pragma once

#include <cstdint>
#include <string_view>

#include "authd/error.hpp"
#include "authd/store.hpp"

namespace authd {

inline constexpr std::string_view kMailLimits = "mail_limits";

// A window counter in the store: true when under `limit` for the hour
// starting at the first count. Inside the caller's write transaction.
Result<bool> count_hourly(StoreTxn& txn, std::string_view ns, std::string_view key, unsigned limit, std::int64_t now);

// One more request from the client address group of `address` (its /64 for
// IPv6), counted under `prefix` + group in "mail_limits"; `limit` per hour,
// 0 = no limit. `what` names the requests in the errors ("password reset
// requests"). Errors: throttled (retry after an hour), unavailable.
Result<void> admit_address_hourly(Store& store, std::string_view prefix, std::string_view address, unsigned limit,
                                  std::int64_t now, std::string_view what);

}  // namespace authd
