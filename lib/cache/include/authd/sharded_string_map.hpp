// lib/cache/: what the in-process caches share, written once.
//  - StringMap: string keys looked up by std::string_view without a copy
//    (a transparent hash);
//  - ShardedStringMap: such maps spread over shards, each with its own mutex,
//    so that threads rarely contend, and an epoch that clear() bumps (the
//    PostgreSQL caches hand out tickets against it, so that an answer read
//    before an eviction is not kept after it).
// Users: the PostgreSQL store's user cache and records cache
// (lib/store/postgres/), lib/token's verified-token cache. What each keeps,
// how it is bounded and when it forgets stays with each: their rules differ.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace authd {

struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view text) const noexcept { return std::hash<std::string_view>{}(text); }
};

template <class V, class Hash = StringHash>
using StringMap = std::unordered_map<std::string, V, Hash, std::equal_to<>>;

// `Hash` hashes a key for its shard's map (transparent, as StringHash).
template <class V, std::size_t N = 16, class Hash = StringHash>
class ShardedStringMap {
 public:
  static constexpr std::size_t kShards = N;

  struct Shard {
    mutable std::mutex mutex;
    StringMap<V, Hash> entries;
    std::uint64_t epoch = 0;  // + 1 on every clear() (and on the owner's evictions)
  };

  // The shard of `key` from its last 16 bytes only: the map then hashes the
  // whole key again, and a token's tail (its signature) is as random as any.
  static std::size_t index_of(std::string_view key) noexcept {
    return StringHash{}(key.substr(key.size() - std::min<std::size_t>(key.size(), 16))) % N;
  }
  Shard& shard(std::size_t index) noexcept { return shards_[index]; }
  const Shard& shard(std::size_t index) const noexcept { return shards_[index]; }
  Shard& shard_for(std::string_view key) noexcept { return shards_[index_of(key)]; }
  const Shard& shard_for(std::string_view key) const noexcept { return shards_[index_of(key)]; }

  // Empties every shard (one lock at a time) and bumps its epoch.
  void clear() {
    for (Shard& s : shards_) {
      std::lock_guard lock(s.mutex);
      ++s.epoch;
      s.entries.clear();
    }
  }

 private:
  std::array<Shard, N> shards_;
};

}  // namespace authd
