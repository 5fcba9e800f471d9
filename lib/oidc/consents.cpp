#include "authd/oidc_consents.hpp"

#include <set>

#include "authd/crypto.hpp"
#include "authd/json.hpp"

namespace authd {
namespace {

constexpr std::string_view kNamespace = "oidc_consent";

std::string key_of(std::string_view user_id, std::string_view client_id) {
  return crypto::to_hex(crypto::sha256(std::string(user_id) + "\n" + std::string(client_id)));
}

std::set<std::string, std::less<>> words(std::string_view text) {
  std::set<std::string, std::less<>> out;
  for (std::size_t from = 0; from < text.size();) {
    const auto end = std::min(text.find(' ', from), text.size());
    if (end > from) out.emplace(text.substr(from, end - from));
    from = end + 1;
  }
  return out;
}

// The stored value: {"scope": "...", "expires_at": N, "client_id": "..."}
// (consents from before the client_id field have none).
std::set<std::string, std::less<>> allowed_in(const std::optional<std::string>& value, std::int64_t now) {
  if (!value) return {};
  auto entry = Json::parse(*value);
  if (!entry || !entry->is_object() || entry->get_integer("expires_at").value_or(0) <= now) return {};
  return words(entry->get_string("scope").value_or(""));
}

}  // namespace

Result<bool> OidcConsents::covers(std::string_view user_id, std::string_view client_id, std::string_view scope,
                                  std::int64_t now) {
  const auto key = key_of(user_id, client_id);
  return read_value(store_, [&](StoreTxn& txn) -> Result<bool> {
    auto value = txn.get_entry(kNamespace, key);
    if (!value) return std::unexpected(value.error());
    const auto allowed = allowed_in(*value, now);
    for (const auto& wanted : words(scope)) {
      if (!allowed.contains(wanted)) return false;
    }
    return true;
  });
}

Result<void> OidcConsents::grant(std::string_view user_id, std::string_view client_id, std::string_view scope,
                                 std::int64_t now) {
  const auto key = key_of(user_id, client_id);
  return store_.write([&](StoreTxn& txn) -> Result<void> {
    auto value = txn.get_entry(kNamespace, key);
    if (!value) return std::unexpected(value.error());
    auto allowed = allowed_in(*value, now);
    for (auto& wanted : words(scope)) allowed.insert(wanted);
    std::string joined;
    for (const auto& s : allowed) joined += (joined.empty() ? "" : " ") + s;
    Json entry = Json::object();
    entry.set("scope", Json::string(joined))
        .set("expires_at", Json::integer(now + kConsentTtl))
        .set("client_id", Json::string(std::string(client_id)));
    return txn.put_entry(kNamespace, key, entry.dump(), now + kConsentTtl);
  });
}

Result<void> OidcConsents::revoke(std::string_view user_id, std::string_view client_id) {
  const auto key = key_of(user_id, client_id);
  return store_.write([&](StoreTxn& txn) { return txn.delete_entry(kNamespace, key); });
}

Result<std::size_t> revoke_client_consents(StoreTxn& txn, std::string_view client_id) {
  if (client_id.empty()) return 0;
  auto consents = txn.list_entries(kNamespace);
  if (!consents) return std::unexpected(consents.error());
  std::size_t revoked = 0;
  for (const auto& [key, value] : *consents) {
    const auto entry = Json::parse(value);
    if (!entry || !entry->is_object() || entry->get_string("client_id").value_or("") != client_id) continue;
    if (auto ok = txn.delete_entry(kNamespace, key); !ok) return std::unexpected(ok.error());
    ++revoked;
  }
  return revoked;
}

}  // namespace authd
