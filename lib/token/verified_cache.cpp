#include "token/verified_cache.hpp"

namespace authd::token_detail {

std::shared_ptr<const TokenClaims> VerifiedTokenCache::find(std::string_view type, std::string_view token,
                                                            std::int64_t now, std::int64_t leeway) const {
  const auto& shard = shards_.shard_for(token);
  std::lock_guard lock(shard.mutex);
  const auto found = shard.entries.find(token);
  const bool usable = found != shard.entries.end() && found->second.type == type &&
                      now - leeway < found->second.claims->expires_at && now + leeway >= found->second.valid_from;
  (usable ? hits_ : misses_).fetch_add(1, std::memory_order_relaxed);
  if (!usable) return nullptr;
  return found->second.claims;
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
