#include "token/verified_cache.hpp"

#include <array>
#include <iterator>

namespace authd::token_detail {

std::string VerifiedTokenCache::key_of(std::string_view type, std::string_view token) {
  std::string key;
  key.reserve(type.size() + 1 + token.size());
  key.append(type).push_back('\n');  // '\n' occurs in neither part
  key.append(token);
  return key;
}

std::optional<TokenClaims> VerifiedTokenCache::find(std::string_view type, std::string_view token, std::int64_t now,
                                                    std::int64_t leeway) const {
  // Build the key on the stack for the common token sizes.
  std::array<char, 1024> buffer;
  std::string heap;
  std::string_view key;
  if (type.size() + 1 + token.size() <= buffer.size()) {
    auto out = std::copy(type.begin(), type.end(), buffer.begin());
    *out++ = '\n';
    out = std::copy(token.begin(), token.end(), out);
    key = std::string_view(buffer.data(), static_cast<std::size_t>(std::distance(buffer.begin(), out)));
  } else {
    heap = key_of(type, token);
    key = heap;
  }
  const auto& shard = shards_.shard_for(key);
  std::lock_guard lock(shard.mutex);
  const auto found = shard.entries.find(key);
  const bool usable = found != shard.entries.end() && now - leeway < found->second.claims.expires_at &&
                      now + leeway >= found->second.valid_from;
  (usable ? hits_ : misses_).fetch_add(1, std::memory_order_relaxed);
  if (!usable) return std::nullopt;
  return found->second.claims;
}

void VerifiedTokenCache::clear() { shards_.clear(); }

void VerifiedTokenCache::insert(std::string_view type, std::string_view token, const TokenClaims& claims,
                                std::int64_t valid_from, std::int64_t now) {
  std::string key = key_of(type, token);
  auto& shard = shards_.shard_for(key);
  std::lock_guard lock(shard.mutex);
  if (shard.entries.size() >= per_shard_) {
    std::erase_if(shard.entries, [&](const auto& item) { return item.second.claims.expires_at <= now; });
    if (shard.entries.size() >= per_shard_) shard.entries.clear();  // crude, but bounded
  }
  shard.entries.insert_or_assign(std::move(key), Entry{claims, valid_from});
}

}  // namespace authd::token_detail
