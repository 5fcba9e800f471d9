#include "store/postgres/records_cache.hpp"

namespace authd::pg {

std::optional<std::string> RecordsCache::find() const {
  if (!live()) return std::nullopt;
  std::lock_guard lock(mutex_);
  return records_;
}

RecordsCache::Ticket RecordsCache::ticket() const {
  std::lock_guard lock(mutex_);
  return epoch_;
}

void RecordsCache::put(Ticket ticket, const std::string& records) {
  if (!live()) return;
  std::lock_guard lock(mutex_);
  if (ticket == epoch_) records_ = records;
}

void RecordsCache::invalidate() {
  std::lock_guard lock(mutex_);
  records_.reset();
  ++epoch_;
}

void RecordsCache::set_live(bool live) {
  std::lock_guard lock(mutex_);
  records_.reset();
  ++epoch_;
  live_.store(live, std::memory_order_release);
}

}  // namespace authd::pg
