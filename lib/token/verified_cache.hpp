// Internal to lib/token/: tokens that passed full verification, so that a
// client presenting the same token again costs one hash-map lookup instead
// of base64, HMAC and JSON. Only complete, successful verifications are
// stored, keyed by the exact token bytes (a tampered token is a different
// key) with the kind they were verified as; expiry and not-before are
// re-checked on every hit. Bounded in size; sharded so that threads rarely
// contend.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "authd/token.hpp"
#include "authd/sharded_string_map.hpp"

namespace authd::token_detail {

class VerifiedTokenCache {
 public:
  explicit VerifiedTokenCache(std::size_t capacity) : per_shard_(capacity / kShards + 1) {}

  // The claims if `token` of kind `type` was verified before and is still
  // valid at `now` with `leeway` (else null), shared read-only.
  std::shared_ptr<const TokenClaims> find(std::string_view type, std::string_view token, std::int64_t now,
                                         std::int64_t leeway) const;
  // Forgets every token (the key set changed).
  void clear();
  // `valid_from` is the latest of iat and nbf.
  void insert(std::string_view type, std::string_view token, std::shared_ptr<const TokenClaims> claims,
              std::int64_t valid_from, std::int64_t now);

  std::uint64_t hits() const noexcept;
  std::uint64_t misses() const noexcept;

 private:
  static constexpr std::size_t kShards = 16;
  struct Entry {
    std::string type;  // what the token was verified as
    std::shared_ptr<const TokenClaims> claims;
    std::int64_t valid_from = 0;
  };
  // A token ends in its signature, as random as a hash of the whole: hashing
  // its last 32 bytes and its length costs a tenth of hashing all of it. Only
  // verified tokens are stored: no client can fill a bucket with its own.
  struct TailHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view token) const noexcept {
      constexpr std::size_t kTail = 32;
      return StringHash{}(token.substr(token.size() - std::min(token.size(), kTail))) ^ token.size();
    }
  };

  // Lookups counted per shard, each shard's on a cache line of its own and
  // written only under that shard's lock (a plain load and store, no locked
  // instruction): no counter line that every lookup of every loop writes.
  struct alignas(64) Counts {
    std::atomic<std::uint64_t> hits{0};
    std::atomic<std::uint64_t> misses{0};
  };
  using Shards = ShardedStringMap<Entry, kShards, TailHash>;
  // One of the counters, summed over the shards.
  std::uint64_t total(std::atomic<std::uint64_t> Counts::*counter) const noexcept;

  std::size_t per_shard_;
  Shards shards_;
  mutable std::array<Counts, kShards> counts_{};
};

}  // namespace authd::token_detail
