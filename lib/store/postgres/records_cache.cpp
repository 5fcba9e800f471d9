#include "records_cache.hpp"

namespace authd::pg {

std::optional<std::string> RecordsCache::find() const {
  if (!live()) return std::nullopt;
  std::lock_guard lock(mutex_);
  return records_;
}

void RecordsCache::put(Ticket ticket, const std::string& records) {
  if (!live()) return;
  std::lock_guard lock(mutex_);
  if (ticket == epoch_) records_ = records;
}

std::optional<std::string> RecordsCache::find(std::string_view id) const {
  if (!live()) return std::nullopt;
  std::lock_guard lock(mutex_);
  if (auto it = by_id_.find(id); it != by_id_.end()) return it->second;
  return std::nullopt;
}

void RecordsCache::put(Ticket ticket, std::string_view id, const std::string& record) {
  if (!live()) return;
  const std::size_t bytes = id.size() + record.size();
  if (bytes > kMaxRecordBytes) return;
  std::lock_guard lock(mutex_);
  if (ticket != epoch_) return;
  if (by_id_.size() >= kMaxRecords || by_id_bytes_ + bytes > kMaxRecordBytes) {
    by_id_.clear();
    by_id_bytes_ = 0;
  }
  if (by_id_.emplace(std::string(id), record).second) by_id_bytes_ += bytes;
}

RecordsCache::Ticket RecordsCache::ticket() const {
  std::lock_guard lock(mutex_);
  return epoch_;
}

void RecordsCache::clear_locked() {
  records_.reset();
  by_id_.clear();
  by_id_bytes_ = 0;
  ++epoch_;
}

void RecordsCache::invalidate() {
  std::lock_guard lock(mutex_);
  clear_locked();
}

void RecordsCache::set_live(bool live) {
  std::lock_guard lock(mutex_);
  clear_locked();
  live_.store(live, std::memory_order_release);
}

}  // namespace authd::pg
