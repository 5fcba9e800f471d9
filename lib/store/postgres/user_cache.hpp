// Internal to lib/store/postgres/: the bounded in-process user cache behind
// Store::find_user_shared (the guard's per-request lookup).
//
// Coherence: entries are evicted by the LISTEN connection (listener.hpp) when
// PostgreSQL announces a change to a user, and by this process right after it
// commits a change. The cache is used only while that connection listens:
// set_live(false) drops everything and turns the cache off.
//
// A reader that missed takes a ticket before it queries the database and
// hands it back with the answer; the answer is kept only if no eviction hit
// that shard since the ticket was taken. Otherwise an answer read before a
// change, arriving after its eviction, would stay in the cache for good.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "authd/user.hpp"
#include "authd/sharded_string_map.hpp"

namespace authd::pg {

class UserCache {
 public:
  explicit UserCache(std::size_t capacity);

  struct Ticket {
    std::size_t shard = 0;
    std::uint64_t epoch = 0;
    bool valid = false;
  };

  // The kept user, or null: shared and read-only, handed out without a copy.
  std::shared_ptr<const User> find(std::string_view username) const;
  Ticket ticket(std::string_view username) const;
  void put(const Ticket& ticket, const std::shared_ptr<const User>& user);

  // Forgets one user; "" forgets every user.
  void invalidate(std::string_view username);
  // false: forget everything and cache nothing until true again.
  void set_live(bool live);
  bool live() const noexcept { return live_.load(std::memory_order_acquire); }

 private:
  using Shards = ShardedStringMap<std::shared_ptr<const User>>;
  std::size_t shard_of(std::string_view username) const noexcept { return Shards::index_of(username); }

  std::size_t per_shard_;
  Shards shards_;
  std::atomic<bool> live_{false};
};

}  // namespace authd::pg
