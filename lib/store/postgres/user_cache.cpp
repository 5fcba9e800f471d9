#include "user_cache.hpp"

namespace authd::pg {

UserCache::UserCache(std::size_t capacity)
    : per_shard_(capacity == 0 ? 0 : (capacity + Shards::kShards - 1) / Shards::kShards) {}

std::shared_ptr<const User> UserCache::find(std::string_view username) const {
  if (per_shard_ == 0 || !live()) return nullptr;
  const auto& shard = shards_.shard_for(username);
  std::lock_guard lock(shard.mutex);
  const auto it = shard.entries.find(username);
  if (it == shard.entries.end()) return nullptr;
  return it->second;
}

UserCache::Ticket UserCache::ticket(std::string_view username) const {
  if (per_shard_ == 0 || !live()) return {};
  const std::size_t index = shard_of(username);
  const auto& shard = shards_.shard(index);
  std::lock_guard lock(shard.mutex);
  return Ticket{index, shard.epoch, true};
}

void UserCache::put(const Ticket& ticket, const std::shared_ptr<const User>& user) {
  if (!ticket.valid || ticket.shard != shard_of(user->username)) return;
  auto& shard = shards_.shard(ticket.shard);
  std::lock_guard lock(shard.mutex);
  // live() is read under the shard lock: set_live(false) bumps every epoch
  // under the same locks, so a put racing with it fails the epoch check.
  if (shard.epoch != ticket.epoch || !live()) return;
  if (shard.entries.size() >= per_shard_ && !shard.entries.contains(user->username))
    shard.entries.erase(shard.entries.begin());  // bounded: drop some entry
  shard.entries.insert_or_assign(user->username, user);
}

void UserCache::invalidate(std::string_view username) {
  if (username.empty()) {
    shards_.clear();
    return;
  }
  auto& shard = shards_.shard_for(username);
  std::lock_guard lock(shard.mutex);
  ++shard.epoch;
  if (const auto it = shard.entries.find(username); it != shard.entries.end()) shard.entries.erase(it);
}

void UserCache::set_live(bool live) {
  if (!live) live_.store(false, std::memory_order_release);
  shards_.clear();
  if (live) live_.store(true, std::memory_order_release);
}

}  // namespace authd::pg
