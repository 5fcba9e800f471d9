// Internal to lib/store/postgres/: the cached answers of list_records (every
// record as one JSON array text, for the guarded read GET /records) and of
// Store::find_record (one record's text, for the capability read
// GET /records/{id}), which would otherwise cost a database transaction per
// request.
//
// Coherence, as the user cache (user_cache.hpp): PostgreSQL announces every
// change to table records on channel authd_records (migration 003, no
// payload), the LISTEN connection drops everything cached here, and so does
// this process right after it commits a change. The cache is used only while
// that connection listens. A reader that missed takes a ticket before its
// query; its answer is kept only if no change was announced since.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "authd/sharded_string_map.hpp"

namespace authd::pg {

class RecordsCache {
 public:
  using Ticket = std::uint64_t;

  // The whole list.
  std::optional<std::string> find() const;
  void put(Ticket ticket, const std::string& records);
  // One record by id (only records that exist are kept).
  std::optional<std::string> find(std::string_view id) const;
  void put(Ticket ticket, std::string_view id, const std::string& record);

  Ticket ticket() const;
  void invalidate();
  void set_live(bool live);
  bool live() const noexcept { return live_.load(std::memory_order_acquire); }

  // Bounds of the per-record part: past either, it starts over empty.
  static constexpr std::size_t kMaxRecords = 10000;
  static constexpr std::size_t kMaxRecordBytes = 16u << 20;

 private:
  void clear_locked();

  mutable std::mutex mutex_;
  std::optional<std::string> records_;
  StringMap<std::string> by_id_;
  std::size_t by_id_bytes_ = 0;
  std::uint64_t epoch_ = 0;  // + 1 on every invalidation
  std::atomic<bool> live_{false};
};

}  // namespace authd::pg
