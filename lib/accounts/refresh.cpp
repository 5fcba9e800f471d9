#include "authd/refresh.hpp"

#include <cctype>
#include <charconv>
#include <optional>

#include "authd/crypto.hpp"

namespace authd {
namespace {

struct Parsed {
  std::string_view user_id, family, secret;
};

std::optional<Parsed> parse(std::string_view token) {
  const auto first = token.find('.');
  if (first == std::string_view::npos) return std::nullopt;
  const auto second = token.find('.', first + 1);
  if (second == std::string_view::npos) return std::nullopt;
  Parsed p{token.substr(0, first), token.substr(first + 1, second - first - 1), token.substr(second + 1)};
  if (p.user_id.empty() || p.user_id.size() > 64 || p.family.size() != 32 || p.secret.empty() || p.secret.size() > 64) {
    return std::nullopt;
  }
  for (unsigned char c : token) {
    if (!(std::isalnum(c) || c == '-' || c == '_' || c == '.')) return std::nullopt;
  }
  return p;
}

std::string ns_of(std::string_view user_id) { return "refresh:" + std::string(user_id); }

// Stored value: "<expires_at>\n<username>\n<sha256 hex of the next secret>"
// plus "\n<amr>" after a second factor (the expiry again: an entry may
// outlive it until purge_expired runs).
std::string stored(std::int64_t expires_at, std::string_view username, std::string_view secret, std::string_view amr) {
  const auto digest = crypto::sha256(secret);
  std::string value = std::to_string(expires_at) + "\n" + std::string(username) + "\n" + crypto::to_hex(digest);
  if (!amr.empty()) value += "\n" + std::string(amr);
  return value;
}

}  // namespace

Result<std::string> RefreshTokens::start(const User& user, std::int64_t now, std::string_view amr) {
  const std::string family = crypto::random_hex(16);
  const std::string secret = crypto::random_token(32);
  auto done = store_.write([&](StoreTxn& txn) {
    return txn.put_entry(ns_of(user.id), family, stored(now + policy_.ttl.count(), user.username, secret, amr),
                         now + policy_.ttl.count());
  });
  if (!done) return std::unexpected(done.error());
  return user.id + "." + family + "." + secret;
}

Result<Refreshed> RefreshTokens::rotate(std::string_view token, std::int64_t now) {
  const auto parts = parse(token);
  if (!parts) return fail(Errc::invalid_token, "malformed refresh token");
  const std::string ns = ns_of(parts->user_id);
  const std::string next_secret = crypto::random_token(32);
  bool reused = false;
  Refreshed out;
  auto done = store_.write([&](StoreTxn& txn) -> Result<void> {
    auto entry = txn.get_entry(ns, parts->family);
    if (!entry) return std::unexpected(entry.error());
    if (!*entry) return fail(Errc::invalid_token, "unknown or expired refresh token");
    std::string_view value = **entry;
    const auto first = value.find('\n');
    const auto second = value.find('\n', first == std::string_view::npos ? value.size() : first + 1);
    if (second == std::string_view::npos) return fail(Errc::internal, "corrupt refresh entry");
    std::int64_t expires_at = 0;
    std::from_chars(value.data(), value.data() + first, expires_at);
    if (expires_at <= now) return fail(Errc::invalid_token, "expired refresh token");
    const auto username = value.substr(first + 1, second - first - 1);
    const auto third = value.find('\n', second + 1);
    const auto expected_hex = value.substr(second + 1, third == std::string_view::npos ? std::string_view::npos : third - second - 1);
    const auto amr = third == std::string_view::npos ? std::string_view() : value.substr(third + 1);
    const auto presented_hex = crypto::to_hex(crypto::sha256(parts->secret));
    if (!crypto::equal_constant_time(presented_hex, expected_hex)) {
      reused = true;  // a used (or forged) secret of a live family: end it, and commit that
      return txn.delete_entry(ns, parts->family);
    }
    auto user = txn.find_user(username);
    if (!user || user->id != parts->user_id) {
      (void)txn.delete_entry(ns, parts->family);
      if (!user && user.error().code != Errc::not_found) return std::unexpected(user.error());
      out.user = User{};
      return {};
    }
    out.user = std::move(*user);
    out.amr = std::string(amr);
    return txn.put_entry(ns, parts->family, stored(now + policy_.ttl.count(), username, next_secret, amr),
                         now + policy_.ttl.count());
  });
  if (!done) return std::unexpected(done.error());
  if (reused) return fail(Errc::invalid_token, "refresh token reused: its family is ended");
  if (out.user.id.empty()) return fail(Errc::invalid_token, "the refresh token's user no longer exists");
  out.refresh_token = std::string(parts->user_id) + "." + std::string(parts->family) + "." + next_secret;
  return out;
}

Result<void> RefreshTokens::end(std::string_view token) {
  const auto parts = parse(token);
  if (!parts) return {};
  return store_.write([&](StoreTxn& txn) { return txn.delete_entry(ns_of(parts->user_id), parts->family); });
}

Result<void> RefreshTokens::end_user(std::string_view user_id) {
  return store_.write([&](StoreTxn& txn) -> Result<void> {
    const std::string ns = ns_of(user_id);
    auto families = txn.list_entries(ns);
    if (!families) return std::unexpected(families.error());
    for (const auto& [family, value] : *families) {
      if (auto ok = txn.delete_entry(ns, family); !ok) return ok;
    }
    return {};
  });
}

std::vector<settings::Setting> refresh_settings(RefreshPolicy& p) {
  return {
      settings::seconds("refresh_token_ttl", p.ttl, 0, 366LL * 24 * 3600,
                        "rotating refresh tokens (cookie `refresh`, POST /token/refresh) live this long; 0 = off"),
  };
}

}  // namespace authd
