// Internal to lib/store/lmdb/: answers of the one-read lookups (the guard's
// find_user_shared on every request, find_record, list_records) kept with
// the id of the snapshot they were read from.
//
// Coherence: an answer is good while that snapshot is still LMDB's last
// committed transaction. Every commit, by this process or another one on the
// same files (a second node, authctl), moves the id on, which turns every kept
// answer into a miss: nothing needs evicting, and nothing is ever served that
// a read transaction begun now would not read. The caller reads the last id
// from the meta pages (mdb_env_info) without a transaction; on a read-mostly
// load a lookup then skips the read transaction, the B-tree search and the
// decoding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string_view>

#include "authd/sharded_string_map.hpp"

namespace authd::lmdb {

template <class V>
class SnapshotCache {
 public:
  explicit SnapshotCache(std::size_t capacity)
      : per_shard_((capacity + Shards::kShards - 1) / Shards::kShards) {}

  // The value kept for `key`, when it was read from snapshot `last_commit`.
  std::optional<V> find(std::string_view key, std::uint64_t last_commit) const {
    const auto& shard = shards_.shard_for(key);
    std::lock_guard lock(shard.mutex);
    const auto it = shard.entries.find(key);
    if (it == shard.entries.end() || it->second.snapshot != last_commit) return std::nullopt;
    return it->second.value;
  }

  // Keeps `value`, read from snapshot `snapshot` (mdb_txn_id of the read).
  void put(std::string_view key, std::uint64_t snapshot, const V& value) {
    if (per_shard_ == 0) return;
    auto& shard = shards_.shard_for(key);
    std::lock_guard lock(shard.mutex);
    if (const auto it = shard.entries.find(key); it != shard.entries.end()) {
      if (it->second.snapshot <= snapshot) it->second = Entry{snapshot, value};  // never an older read
      return;
    }
    // Bounded: a full shard drops some entry (one from an older snapshot is a
    // miss anyway; sweeping those out on every put cost a scan of the shard).
    if (shard.entries.size() >= per_shard_) shard.entries.erase(shard.entries.begin());
    shard.entries.emplace(std::string(key), Entry{snapshot, value});
  }

 private:
  struct Entry {
    std::uint64_t snapshot;
    V value;
  };
  using Shards = ShardedStringMap<Entry>;

  std::size_t per_shard_;
  Shards shards_;
};

}  // namespace authd::lmdb
