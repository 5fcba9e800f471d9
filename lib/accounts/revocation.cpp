#include "authd/revocation.hpp"

#include <algorithm>
#include <charconv>

#include "authd/password_reset.hpp"
#include "authd/refresh.hpp"

namespace authd {
namespace {

// The token's generation: the `gen` claim, 0 when absent (tokens issued
// before lifecycle support). Anything unparsable never matches.
std::int64_t generation_of(const TokenClaims& claims) {
  const auto found = claims.extra.find(kGenerationClaim);
  if (found == claims.extra.end()) return 0;
  std::int64_t value = -1;
  const auto& text = found->second;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return -1;
  return value;
}

}  // namespace

std::map<std::string, std::string, std::less<>> lifecycle_claims(const User& user) {
  return {{std::string(kGenerationClaim), std::to_string(user.token_generation)}};
}

Result<void> TokenRevocation::revoke(std::string_view username, const TokenClaims& claims, std::int64_t now) {
  if (claims.token_id.empty()) return fail(Errc::invalid_token, "the token has no jti");
  // Every 64th sign-out of a process also drops expired entries (the list
  // would otherwise shrink only when a process starts).
  const bool purge = revocations_.fetch_add(1, std::memory_order_relaxed) % 64 == 63;
  // The session the token is: the refresh family it names, else the token itself.
  const auto family = claims.extra.find(kRefreshFamilyClaim);
  const std::string_view session = family != claims.extra.end() && !family->second.empty()
                                       ? std::string_view(family->second) : std::string_view(claims.token_id);
  std::size_t queued = 0;
  auto done = store_.write([&](StoreTxn& txn) -> Result<void> {
    queued = 0;
    if (purge) {
      if (auto dropped = txn.purge_expired(now); !dropped) return std::unexpected(dropped.error());
    }
    auto user = txn.find_user(username);
    if (!user) return std::unexpected(user.error());
    if (auto ok = txn.put_entry(kRevokedTokenNamespace, claims.token_id, "", claims.expires_at); !ok) return ok;
    // At least the token's own iat, so that check() looks it up even when
    // the clocks of two processes disagree by a second.
    user->last_revocation = std::max({user->last_revocation, now, claims.issued_at});
    if (auto ok = txn.replace_user(*user); !ok) return ok;
    if (!hook_) return {};
    auto followed = hook_->ending(txn, {user->id, EndedSessions::Scope::session, session}, now);
    if (!followed) return std::unexpected(followed.error());
    queued = *followed;
    return {};
  });
  if (done && hook_) hook_->ended(queued);
  return done;
}

Result<void> TokenRevocation::revoke_listed(const TokenClaims& claims) {
  if (claims.token_id.empty()) return fail(Errc::invalid_token, "the token has no jti");
  return store_.write([&](StoreTxn& txn) { return txn.put_entry(kRevokedTokenNamespace, claims.token_id, "", claims.expires_at); });
}

Result<User> TokenRevocation::end_all(std::string_view username, bool with_links) {
  User changed;
  auto done = store_.write([&](StoreTxn& txn) -> Result<void> {
    auto user = txn.find_user(username);
    if (!user) return std::unexpected(user.error());
    user->token_generation += 1;
    if (with_links) {
      if (auto ended = end_pending_links(txn, user->id); !ended) return ended;
    }
    changed = *user;
    return txn.replace_user(*user);
  });
  if (!done) return std::unexpected(done.error());
  return changed;
}

Result<void> TokenRevocation::check(const User& user, const TokenClaims& claims) const {
  if (generation_of(claims) != user.token_generation) return fail(Errc::invalid_token, "the token was ended");
  if (user.last_revocation == 0 || claims.issued_at > user.last_revocation) return {};
  // The only case that reads the list: a token older than a sign-out.
  auto listed = read_value(store_, [&](StoreTxn& txn) { return txn.get_entry(kRevokedTokenNamespace, claims.token_id); });
  if (!listed) return std::unexpected(listed.error());
  if (*listed) return fail(Errc::invalid_token, "the token was revoked");
  return {};
}

}  // namespace authd
