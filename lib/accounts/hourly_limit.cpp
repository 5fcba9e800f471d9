#include "hourly_limit.hpp"

#include <cstdlib>
#include <string>

#include "authd/throttle.hpp"

namespace authd {
namespace {

constexpr std::int64_t kHour = 3600;

}  // namespace

Result<bool> count_hourly(StoreTxn& txn, std::string_view ns, std::string_view key, unsigned limit, std::int64_t now) {
  auto stored = txn.get_entry(ns, key);
  if (!stored) return std::unexpected(stored.error());
  std::int64_t first = now, count = 0;
  if (*stored) {
    const auto space = (*stored)->find(' ');
    if (space != std::string::npos) {
      first = std::strtoll((*stored)->c_str(), nullptr, 10);
      count = std::strtoll((*stored)->c_str() + space + 1, nullptr, 10);
    }
    if (now - first >= kHour) first = now, count = 0;
  }
  if (count >= static_cast<std::int64_t>(limit)) return false;
  count += 1;
  if (auto ok = txn.put_entry(ns, key, std::to_string(first) + " " + std::to_string(count), first + kHour); !ok) {
    return std::unexpected(ok.error());
  }
  return true;
}

Result<void> admit_address_hourly(Store& store, std::string_view prefix, std::string_view address, unsigned limit,
                                  std::int64_t now, std::string_view what) {
  if (limit == 0) return {};
  bool admitted = true;
  auto done = store.write([&](StoreTxn& txn) -> Result<void> {
    auto counted = count_hourly(txn, kMailLimits, std::string(prefix) + address_group(address), limit, now);
    if (!counted) return std::unexpected(counted.error());
    admitted = *counted;
    return {};
  });
  if (!done) return fail(Errc::unavailable, "cannot count " + std::string(what) + ": " + done.error().message);
  if (!admitted) return fail(Error::retry_later(Errc::throttled, kHour, "too many " + std::string(what)));
  return {};
}

}  // namespace authd
