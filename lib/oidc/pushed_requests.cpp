#include "authd/pushed_requests.hpp"

#include <algorithm>
#include <cctype>

#include "authd/crypto.hpp"
#include "authd/json.hpp"

namespace authd {
namespace {

constexpr std::string_view kNamespace = "oidc_par";

// The store key of a well-formed request_uri (the prefix and 43 base64url
// characters: crypto::random_token(32)); nullopt for anything else.
std::optional<std::string> key_of(std::string_view request_uri) {
  if (!request_uri.starts_with(kRequestUriPrefix)) return std::nullopt;
  const auto token = request_uri.substr(kRequestUriPrefix.size());
  if (token.size() != 43 || !std::all_of(token.begin(), token.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
      })) {
    return std::nullopt;
  }
  return crypto::to_hex(crypto::sha256(token));
}

Json parameters_json(const RequestParameters& parameters) {
  Json json = Json::object();
  for (const auto& [name, value] : parameters) json.set(name, Json::string(value));
  return json;
}

RequestParameters parameters_of(const Json& json) {
  RequestParameters parameters;
  for (const auto& name : json.keys()) {
    if (auto value = json.get_string(name)) parameters.emplace(name, std::string(*value));
  }
  return parameters;
}

Result<Json> entry_at(StoreTxn& txn, const std::string& key, std::int64_t now) {
  auto value = txn.get_entry(kNamespace, key);
  if (!value) return std::unexpected(value.error());
  if (!*value) return fail(Errc::invalid_token, "unknown, expired or used request_uri");
  auto entry = Json::parse(**value);
  if (!entry || !entry->is_object()) return fail(Errc::internal, "corrupt pushed request entry");
  if (entry->get_integer("expires_at").value_or(0) <= now) return fail(Errc::invalid_token, "expired request_uri");
  return std::move(*entry);
}

}  // namespace

Result<std::string> PushedRequests::push(std::string_view client_id, const RequestParameters& parameters,
                                         std::int64_t now) {
  const std::string token = crypto::random_token(32);
  Json entry = Json::object();
  entry.set("client_id", Json::string(std::string(client_id)))
      .set("parameters", parameters_json(parameters))
      .set("expires_at", Json::integer(now + kPushedRequestTtl));
  auto done = store_.write([&](StoreTxn& txn) {
    return txn.put_entry(kNamespace, crypto::to_hex(crypto::sha256(token)), entry.dump(), now + kPushedRequestTtl);
  });
  if (!done) return std::unexpected(done.error());
  return std::string(kRequestUriPrefix) + token;
}

Result<RequestParameters> PushedRequests::open(std::string_view request_uri, std::string_view client_id,
                                               std::int64_t now) {
  const auto key = key_of(request_uri);
  if (!key) return fail(Errc::invalid_token, "malformed request_uri");
  RequestParameters parameters;
  auto done = store_.write([&](StoreTxn& txn) -> Result<void> {
    auto entry = entry_at(txn, *key, now);
    if (!entry) return std::unexpected(entry.error());
    // Another client's request_uri is as good as unknown (RFC 9126 §4).
    if (entry->get_string("client_id").value_or("") != client_id) {
      return fail(Errc::invalid_token, "unknown, expired or used request_uri");
    }
    parameters = parameters_of(entry->get("parameters"));
    if (entry->get("opened").is_true()) return {};
    entry->set("opened", Json::boolean(true)).set("expires_at", Json::integer(now + kPushedRequestFlowTtl));
    return txn.put_entry(kNamespace, *key, entry->dump(), now + kPushedRequestFlowTtl);
  });
  if (!done) return std::unexpected(done.error());
  return parameters;
}

Result<void> PushedRequests::update(std::string_view request_uri, const RequestParameters& parameters,
                                    std::int64_t now) {
  const auto key = key_of(request_uri);
  if (!key) return fail(Errc::invalid_token, "malformed request_uri");
  return store_.write([&](StoreTxn& txn) -> Result<void> {
    auto entry = entry_at(txn, *key, now);
    if (!entry) return std::unexpected(entry.error());
    entry->set("parameters", parameters_json(parameters));
    const auto expires_at = entry->get_integer("expires_at").value_or(now);
    return txn.put_entry(kNamespace, *key, entry->dump(), expires_at);
  });
}

Result<void> PushedRequests::finish(std::string_view request_uri) {
  const auto key = key_of(request_uri);
  if (!key) return {};
  return store_.write([&](StoreTxn& txn) { return txn.delete_entry(kNamespace, *key); });
}

}  // namespace authd
