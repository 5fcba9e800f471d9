#include "verified_cache.hpp"

namespace authd::token_detail {

std::shared_ptr<const TokenClaims> VerifiedTokenCache::find(std::string_view type, std::string_view token,
                                                            std::int64_t now, std::int64_t leeway) const {
  const std::size_t index = Shards::index_of(token);
  const auto& shard = shards_.shard(index);
  std::lock_guard lock(shard.mutex);
  const auto found = shard.entries.find(token);
  const bool usable = found != shard.entries.end() && found->second.type == type &&
                      now - leeway < found->second.claims->expires_at && now + leeway >= found->second.valid_from;
  auto& counter = usable ? counts_[index].hits : counts_[index].misses;
  counter.store(counter.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);  // under the lock
  if (!usable) return nullptr;
  return found->second.claims;
}

std::uint64_t VerifiedTokenCache::hits() const noexcept { return total(&Counts::hits); }

std::uint64_t VerifiedTokenCache::misses() const noexcept { return total(&Counts::misses); }

std::uint64_t VerifiedTokenCache::total(std::atomic<std::uint64_t> Counts::*counter) const noexcept {
  std::uint64_t sum = 0;
  for (const auto& counts : counts_) sum += (counts.*counter).load(std::memory_order_relaxed);
  return sum;
}

void VerifiedTokenCache::clear() { shards_.clear(); }

void VerifiedTokenCache::insert(std::string_view type, std::string_view token,
                                std::shared_ptr<const TokenClaims> claims, std::int64_t valid_from, std::int64_t now) {
  auto& shard = shards_.shard_for(token);
  std::lock_guard lock(shard.mutex);
  if (shard.entries.size() >= per_shard_) {
    std::erase_if(shard.entries, [&](const auto& item) { return item.second.claims->expires_at <= now; });
    if (shard.entries.size() >= per_shard_) shard.entries.clear();  // crude, but bounded
  }
  shard.entries.insert_or_assign(std::string(token), Entry{std::string(type), std::move(claims), valid_from});
}

}  // namespace authd::token_detail
