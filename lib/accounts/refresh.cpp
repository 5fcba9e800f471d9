#include "authd/refresh.hpp"

#include <cctype>
#include <algorithm>
#include <charconv>
#include <optional>
#include <vector>

#include "authd/clock.hpp"
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

// Stored value: "<expires_at>\n<username>\n<sha256 hex of the next secret>\n<amr>\n<started_at>"
// (amr "" without a second factor; the expiry again: an entry may outlive it
// until purge_expired runs). Families stored before refresh_token_max_age
// have no started_at (3 or 4 lines): their last rotation stands in for it.
// A family of an OpenID client adds "\n<client_id>\n<scope>" (7 lines), and
// "\n<auth_time>" when its user signed in before the family started (an
// authorization code's sign-in; 8 lines, client_id then possibly empty).
struct Family {
  std::int64_t expires_at = 0;
  std::string username;
  std::string secret_hex;
  std::string amr;
  std::int64_t started_at = 0;
  std::string client_id;
  std::string scope;
  std::int64_t auth_time = 0;  // when the user signed in; 0: at started_at
};

std::string stored(const Family& family, std::string_view secret) {
  const bool own_auth_time = family.auth_time != 0 && family.auth_time != family.started_at;
  return std::to_string(family.expires_at) + "\n" + family.username + "\n" + crypto::to_hex(crypto::sha256(secret)) +
         "\n" + family.amr + "\n" + std::to_string(family.started_at) +
         (family.client_id.empty() && !own_auth_time ? std::string() : "\n" + family.client_id + "\n" + family.scope) +
         (own_auth_time ? "\n" + std::to_string(family.auth_time) : std::string());
}

std::optional<Family> decode(std::string_view value, std::chrono::seconds ttl) {
  std::vector<std::string_view> lines;
  for (std::size_t from = 0;;) {
    const auto end = value.find('\n', from);
    lines.push_back(value.substr(from, end == std::string_view::npos ? std::string_view::npos : end - from));
    if (end == std::string_view::npos) break;
    from = end + 1;
  }
  if (lines.size() < 3 || lines.size() == 6 || lines.size() > 8) return std::nullopt;
  Family family;
  auto number = [](std::string_view text, std::int64_t& out) {
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    return ec == std::errc() && end == text.data() + text.size();
  };
  if (!number(lines[0], family.expires_at)) return std::nullopt;
  family.username = std::string(lines[1]);
  family.secret_hex = std::string(lines[2]);
  if (lines.size() >= 4) family.amr = std::string(lines[3]);
  if (lines.size() >= 5) {
    if (!number(lines[4], family.started_at)) return std::nullopt;
    if (lines.size() >= 7) {
      family.client_id = std::string(lines[5]);
      family.scope = std::string(lines[6]);
    }
    if (lines.size() == 8 && !number(lines[7], family.auth_time)) return std::nullopt;
  } else {
    family.started_at = family.expires_at - ttl.count();
  }
  return family;
}

// The expiry of a token handed out at `now`: its ttl, never past the
// family's absolute end.
std::int64_t expiry(const RefreshPolicy& policy, std::int64_t started_at, std::int64_t now) {
  return std::min(now + policy.ttl.count(), started_at + policy.max_age.count());
}

}  // namespace

Result<Started> RefreshTokens::start(const User& user, std::int64_t now, std::string_view amr,
                                     std::string_view client_id, std::string_view scope,
                                     std::int64_t authenticated_at) {
  const std::string family = crypto::random_hex(16);
  const std::string secret = crypto::random_token(32);
  // A sign-in "later" than now (a clock step) is taken as now.
  const std::int64_t auth_time = authenticated_at > 0 && authenticated_at < now ? authenticated_at : now;
  const Family entry{expiry(policy_, now, now), user.username, "", std::string(amr), now, std::string(client_id),
                     std::string(scope), auth_time};
  auto done = store_.write(
      [&](StoreTxn& txn) { return txn.put_entry(ns_of(user.id), family, stored(entry, secret), entry.expires_at); });
  if (!done) return std::unexpected(done.error());
  return Started{user.id + "." + family + "." + secret, family, entry.expires_at};
}

Result<Refreshed> RefreshTokens::rotate(std::string_view token, std::int64_t now, std::string_view client_id,
                                        const Admit& admit) {
  const auto parts = parse(token);
  if (!parts) return fail(Errc::invalid_token, "malformed refresh token");
  const std::string ns = ns_of(parts->user_id);
  const std::string next_secret = crypto::random_token(32);
  bool reused = false, expired = false;
  Refreshed out;
  auto done = store_.write([&](StoreTxn& txn) -> Result<void> {
    reused = expired = false;  // the work may run again (a backend's retry)
    out = Refreshed{};
    auto entry = txn.get_entry(ns, parts->family);
    if (!entry) return std::unexpected(entry.error());
    if (!*entry) return fail(Errc::invalid_token, "unknown or expired refresh token");
    auto family = decode(**entry, policy_.ttl);
    if (!family) return fail(Errc::internal, "corrupt refresh entry");
    // Its rotation deadline, and the family's absolute end (a setting
    // lowered since applies at once).
    if (family->expires_at <= now || family->started_at + policy_.max_age.count() <= now) {
      expired = true;
      return txn.delete_entry(ns, parts->family);
    }
    // Bound to the client it was issued to (RFC 6749 §6); authd's own
    // families ("") never pass at /token, nor a client's at /token/refresh.
    if (family->client_id != client_id) return fail(Errc::invalid_token, "refresh token of another client");
    const auto presented_hex = crypto::to_hex(crypto::sha256(parts->secret));
    if (!crypto::equal_constant_time(presented_hex, family->secret_hex)) {
      reused = true;  // a used (or forged) secret of a live family: end it, and commit that
      return txn.delete_entry(ns, parts->family);
    }
    auto user = txn.find_user(family->username);
    if (!user || user->id != parts->user_id) {
      (void)txn.delete_entry(ns, parts->family);
      if (!user && user.error().code != Errc::not_found) return std::unexpected(user.error());
      out.user = User{};
      return {};
    }
    if (admit) {
      if (auto admitted = admit(*user); !admitted) return admitted;
    }
    out.user = std::move(*user);
    out.amr = family->amr;
    out.scope = family->scope;
    out.authenticated_at = family->auth_time != 0 ? family->auth_time : family->started_at;
    family->expires_at = expiry(policy_, family->started_at, now);
    out.expires_at = family->expires_at;
    return txn.put_entry(ns, parts->family, stored(*family, next_secret), family->expires_at);
  });
  if (!done) return std::unexpected(done.error());
  if (expired) return fail(Errc::invalid_token, "expired refresh token (its ttl or refresh_token_max_age)");
  if (reused) return fail(Errc::invalid_token, "refresh token reused: its family is ended");
  if (out.user.id.empty()) return fail(Errc::invalid_token, "the refresh token's user no longer exists");
  out.family = std::string(parts->family);
  out.refresh_token = std::string(parts->user_id) + "." + std::string(parts->family) + "." + next_secret;
  return out;
}

Result<RefreshTokenInfo> RefreshTokens::inspect(std::string_view token, std::int64_t now) const {
  const auto parts = parse(token);
  if (!parts) return fail(Errc::invalid_token, "malformed refresh token");
  RefreshTokenInfo info;
  auto done = read_value(store_, [&](StoreTxn& txn) -> Result<bool> {
    auto entry = txn.get_entry(ns_of(parts->user_id), parts->family);
    if (!entry) return std::unexpected(entry.error());
    if (!*entry) return false;
    auto family = decode(**entry, policy_.ttl);
    if (!family) return fail(Errc::internal, "corrupt refresh entry");
    if (family->expires_at <= now || family->started_at + policy_.max_age.count() <= now) return false;
    const auto presented_hex = crypto::to_hex(crypto::sha256(parts->secret));
    if (!crypto::equal_constant_time(presented_hex, family->secret_hex)) return false;
    auto user = txn.find_user(family->username);
    if (!user) {
      if (user.error().code == Errc::not_found) return false;
      return std::unexpected(user.error());
    }
    if (user->id != parts->user_id) return false;
    info.user = std::move(*user);
    info.client_id = family->client_id;
    info.scope = family->scope;
    info.started_at = family->started_at;
    info.expires_at = std::min(family->expires_at, family->started_at + policy_.max_age.count());
    return true;
  });
  if (!done) return std::unexpected(done.error());
  if (!*done) return fail(Errc::invalid_token, "unknown, expired or used refresh token, or its user is gone");
  info.family = std::string(parts->family);
  return info;
}

Result<bool> RefreshTokens::revoke_for_client(std::string_view token, std::string_view client_id) {
  const auto parts = parse(token);
  if (!parts || client_id.empty()) return false;
  const std::string ns = ns_of(parts->user_id);
  bool ended = false;
  auto done = store_.write([&](StoreTxn& txn) -> Result<void> {
    ended = false;  // the work may run again (a backend's retry)
    auto entry = txn.get_entry(ns, parts->family);
    if (!entry) return std::unexpected(entry.error());
    if (!*entry) return {};
    auto family = decode(**entry, policy_.ttl);
    if (!family || family->client_id != client_id) return {};
    ended = true;
    return txn.delete_entry(ns, parts->family);
  });
  if (!done) return std::unexpected(done.error());
  return ended;
}

Result<void> RefreshTokens::end(std::string_view token) {
  const auto parts = parse(token);
  if (!parts) return {};
  return store_.write([&](StoreTxn& txn) { return txn.delete_entry(ns_of(parts->user_id), parts->family); });
}

Result<void> RefreshTokens::ending(const EndedSessions& ended, const std::function<Result<void>(StoreTxn&)>& work) {
  std::size_t queued = 0;
  auto done = store_.write([&](StoreTxn& txn) -> Result<void> {
    queued = 0;  // the work may run again (a backend's retry)
    if (auto ok = work(txn); !ok) return ok;
    if (!hook_) return {};
    auto followed = hook_->ending(txn, ended, unix_now());
    if (!followed) return std::unexpected(followed.error());
    queued = *followed;
    return {};
  });
  if (done && hook_) hook_->ended(queued);
  return done;
}

Result<void> RefreshTokens::end_family(std::string_view user_id, std::string_view family) {
  if (user_id.empty() || family.empty()) return {};
  return ending({user_id, EndedSessions::Scope::session, family},
                [&](StoreTxn& txn) { return txn.delete_entry(ns_of(user_id), family); });
}

Result<void> RefreshTokens::end_client(std::string_view user_id, std::string_view client_id) {
  if (client_id.empty()) return {};
  return ending({user_id, EndedSessions::Scope::client, client_id}, [&](StoreTxn& txn) -> Result<void> {
    const std::string ns = ns_of(user_id);
    auto families = txn.list_entries(ns);
    if (!families) return std::unexpected(families.error());
    for (const auto& [family, value] : *families) {
      const auto decoded = decode(value, policy_.ttl);
      if (!decoded || decoded->client_id != client_id) continue;
      if (auto ok = txn.delete_entry(ns, family); !ok) return ok;
    }
    return {};
  });
}

Result<std::size_t> end_client_families(StoreTxn& txn, std::string_view client_id) {
  if (client_id.empty()) return 0;
  auto families = txn.list_entries_under(ns_of(""));
  if (!families) return std::unexpected(families.error());
  std::size_t ended = 0;
  for (const auto& entry : *families) {
    // The ttl only dates families older than the client binding: never a client's.
    const auto decoded = decode(entry.value, std::chrono::seconds{0});
    if (!decoded || decoded->client_id != client_id) continue;
    if (auto ok = txn.delete_entry(entry.ns, entry.key); !ok) return std::unexpected(ok.error());
    ++ended;
  }
  return ended;
}

Result<void> RefreshTokens::end_user(std::string_view user_id) {
  return ending({user_id, EndedSessions::Scope::all, {}}, [&](StoreTxn& txn) -> Result<void> {
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
  return settings::grouped("Tokens", {
      settings::seconds("refresh_token_ttl", p.ttl, 0, 366LL * 24 * 3600,
                        "Lifetime of a rotating refresh token, in seconds; 0 turns refresh tokens off. When on, "
                        "sign-up, sign-in and /oauth also set an HttpOnly cookie `refresh` (Path=/token/refresh); "
                        "POST /token/refresh trades it (or {\"refresh_token\"}) for a new access token and a new "
                        "refresh token. A refresh token works once; replaying a used one ends its whole family."),
      settings::seconds("refresh_token_max_age", p.max_age, 1, 366LL * 24 * 3600,
                        "The absolute lifetime of a refresh family, in seconds from its sign-in: rotating never "
                        "keeps one alive longer. POST /signout ends the family of the token it signs out."),
  });
}

}  // namespace authd
