#include "store/postgres/user_cache.hpp"

namespace authd::pg {

UserCache::UserCache(std::size_t capacity) : per_shard_(capacity == 0 ? 0 : (capacity + kShards - 1) / kShards) {}

std::optional<User> UserCache::find(std::string_view username) const {
  if (per_shard_ == 0 || !live()) return std::nullopt;
  const Shard& shard = shards_[shard_of(username)];
  std::lock_guard lock(shard.mutex);
  const auto it = shard.users.find(username);
  if (it == shard.users.end()) return std::nullopt;
  return it->second;
}

UserCache::Ticket UserCache::ticket(std::string_view username) const {
  if (per_shard_ == 0 || !live()) return {};
  const std::size_t index = shard_of(username);
  const Shard& shard = shards_[index];
  std::lock_guard lock(shard.mutex);
  return Ticket{index, shard.epoch, true};
}

void UserCache::put(const Ticket& ticket, const User& user) {
  if (!ticket.valid || ticket.shard != shard_of(user.username)) return;
  Shard& shard = shards_[ticket.shard];
  std::lock_guard lock(shard.mutex);
  // live() is read under the shard lock: set_live(false) bumps every epoch
  // under the same locks, so a put racing with it fails the epoch check.
  if (shard.epoch != ticket.epoch || !live()) return;
  if (shard.users.size() >= per_shard_ && !shard.users.contains(user.username))
    shard.users.erase(shard.users.begin());  // bounded: drop some entry
  shard.users.insert_or_assign(user.username, user);
}

void UserCache::invalidate(std::string_view username) {
  if (username.empty()) {
    clear_all();
    return;
  }
  Shard& shard = shards_[shard_of(username)];
  std::lock_guard lock(shard.mutex);
  ++shard.epoch;
  if (const auto it = shard.users.find(username); it != shard.users.end()) shard.users.erase(it);
}

void UserCache::clear_all() {
  for (Shard& shard : shards_) {
    std::lock_guard lock(shard.mutex);
    ++shard.epoch;
    shard.users.clear();
  }
}

void UserCache::set_live(bool live) {
  if (!live) live_.store(false, std::memory_order_release);
  clear_all();
  if (live) live_.store(true, std::memory_order_release);
}

}  // namespace authd::pg
