// Internal to lib/store/postgres/: the cached answer of list_records (every
// record as one JSON array text), for the guarded read GET /records, which
// would otherwise cost a database transaction per request.
//
// Coherence, as the user cache (user_cache.hpp): PostgreSQL announces every
// change to table records on channel authd_records (migration 003), the LISTEN
// connection drops the cached text, and so does this process right after it
// commits a change. The cache is used only while that connection listens. A
// reader that missed takes a ticket before its query; its answer is kept only
// if no change was announced since.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>

namespace authd::pg {

class RecordsCache {
 public:
  using Ticket = std::uint64_t;

  std::optional<std::string> find() const;
  Ticket ticket() const;
  void put(Ticket ticket, const std::string& records);
  void invalidate();
  void set_live(bool live);
  bool live() const noexcept { return live_.load(std::memory_order_acquire); }

 private:
  mutable std::mutex mutex_;
  std::optional<std::string> records_;
  std::uint64_t epoch_ = 0;  // + 1 on every invalidation
  std::atomic<bool> live_{false};
};

}  // namespace authd::pg
