#include "authd/oidc_clients.hpp"

#include <algorithm>
#include <cctype>
#include <limits>

#include "authd/client_assertion.hpp"
#include "authd/crypto.hpp"
#include "authd/json.hpp"
#include "authd/oidc_consents.hpp"
#include "authd/refresh.hpp"
#include "authd/text.hpp"
#include "authd/token.hpp"

namespace authd {
namespace {

constexpr std::string_view kNamespace = "oidc_client";
constexpr std::size_t kMaxUri = 2000;
constexpr std::size_t kMaxUris = 20;
constexpr std::size_t kMaxName = 100;

// The form secrets were kept in before the keyed hash (still read, never written).
std::string legacy_digest(std::string_view secret) { return crypto::to_hex(crypto::sha256(secret)); }

// A literal IPv4 address of 127.0.0.0/8: four dotted decimal octets (0-255,
// no leading zeros, nothing else), the first 127. "127.attacker.example",
// "127.1" or "127.0.0.1.nip.io" are names or shorthands, not loopback.
bool loopback_ipv4(std::string_view host) {
  int octets = 0;
  for (std::size_t from = 0; from <= host.size(); ++octets) {
    const auto dot = std::min(host.find('.', from), host.size());
    const auto octet = host.substr(from, dot - from);
    if (octets == 4 || octet.empty() || octet.size() > 3 || (octet.size() > 1 && octet.front() == '0')) return false;
    if (!std::all_of(octet.begin(), octet.end(), [](char c) { return c >= '0' && c <= '9'; })) return false;
    if (std::stoi(std::string(octet)) > 255 || (octets == 0 && octet != "127")) return false;
    from = dot + 1;
  }
  return octets == 4;
}

// RFC 8252 §7.3, §8.3: only a literal loopback address or the name localhost.
bool loopback_host(std::string_view host) { return host == "localhost" || host == "[::1]" || loopback_ipv4(host); }

Json string_array(const std::vector<std::string>& items) {
  Json array = Json::array();
  for (const auto& item : items) array.append(Json::string(item));
  return array;
}

std::vector<std::string> strings_of(const Json& array) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < array.size(); ++i) {
    if (auto s = array.at(i).as_string()) out.emplace_back(*s);
  }
  return out;
}

Json to_json(const OidcClient& client, bool with_secret_hash) {
  Json json = Json::object();
  json.set("client_id", Json::string(client.id))
      .set("name", Json::string(client.name))
      .set("public", Json::boolean(client.is_public))
      .set("first_party", Json::boolean(client.first_party))
      .set("redirect_uris", string_array(client.redirect_uris))
      .set("post_logout_redirect_uris", string_array(client.post_logout_uris))
      .set("scopes", string_array(client.scopes))
      .set("require_pushed_authorization_requests", Json::boolean(client.require_par))
      .set("created_at", Json::integer(client.created_at));
  if (!client.backchannel_logout_uri.empty()) {
    json.set("backchannel_logout_uri", Json::string(client.backchannel_logout_uri))
        .set("backchannel_logout_session_required", Json::boolean(client.backchannel_logout_session_required));
  }
  json.set("grant_types", string_array(client.grant_types.empty() ? std::vector<std::string>{std::string(kAuthorizationCodeGrant)}
                                                                      : client.grant_types))
      .set("token_endpoint_auth_method", Json::string(auth_method(client)));
  if (client.role) json.set("role", Json::string(to_string(*client.role)));
  if (!client.jwks.empty()) {
    if (auto keys = Json::parse(client.jwks, 8)) json.set("jwks", *keys);
  }
  if (!client.jwks_uri.empty()) json.set("jwks_uri", Json::string(client.jwks_uri));
  if (with_secret_hash && !client.secret_hmac.empty()) json.set("secret_hmac", Json::string(client.secret_hmac));
  if (with_secret_hash && !client.secret_sha256.empty()) json.set("secret_sha256", Json::string(client.secret_sha256));
  return json;
}

Result<OidcClient> from_json(std::string_view text) {
  auto json = Json::parse(text);
  if (!json || !json->is_object()) return fail(Errc::internal, "corrupt client entry");
  OidcClient client;
  client.id = std::string(json->get_string("client_id").value_or(""));
  client.name = std::string(json->get_string("name").value_or(""));
  client.is_public = json->get("public").is_true();
  client.first_party = json->get("first_party").is_true();
  client.redirect_uris = strings_of(json->get("redirect_uris"));
  client.post_logout_uris = strings_of(json->get("post_logout_redirect_uris"));
  client.scopes = strings_of(json->get("scopes"));
  client.require_par = json->get("require_pushed_authorization_requests").is_true();
  client.secret_sha256 = std::string(json->get_string("secret_sha256").value_or(""));
  client.created_at = json->get_integer("created_at").value_or(0);
  client.backchannel_logout_uri = std::string(json->get_string("backchannel_logout_uri").value_or(""));
  client.backchannel_logout_session_required = json->get("backchannel_logout_session_required").is_true();
  client.grant_types = strings_of(json->get("grant_types"));
  if (client.grant_types.empty()) client.grant_types = {std::string(kAuthorizationCodeGrant)};
  if (const auto role = json->get_string("role")) client.role = parse_role(*role);
  if (const Json keys = json->get("jwks"); keys.is_object()) client.jwks = keys.dump();
  client.jwks_uri = std::string(json->get_string("jwks_uri").value_or(""));
  client.secret_hmac = std::string(json->get_string("secret_hmac").value_or(""));
  if (client.id.empty()) return fail(Errc::internal, "corrupt client entry");
  return client;
}

bool valid_id(std::string_view id) {
  if (id.size() != 31 || !id.starts_with("client_")) return false;
  return std::all_of(id.begin() + 7, id.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
}

Result<void> validate_uris(const std::vector<std::string>& uris, std::string_view field) {
  if (uris.size() > kMaxUris) return fail_field(std::string(field), "at most 20 URIs");
  for (const auto& uri : uris) {
    if (auto ok = validate_redirect_uri(uri, field); !ok) return ok;
  }
  return {};
}

// Grant types, role and keys of a client being registered (issue 43 part 3).
Result<void> validate_service(OidcClient& spec) {
  if (spec.grant_types.empty()) spec.grant_types = {std::string(kAuthorizationCodeGrant)};
  std::vector<std::string> grants;
  for (auto& grant : spec.grant_types) {
    if (grant == "device_code") grant = std::string(kDeviceCodeGrant);
    if (grant != kAuthorizationCodeGrant && grant != kClientCredentialsGrant && grant != kDeviceCodeGrant) {
      return fail_field("grant_types", "grant_types: unknown grant type '" + grant +
                                           "' (authorization_code, client_credentials, device_code)");
    }
    if (std::ranges::find(grants, grant) == grants.end()) grants.push_back(grant);
  }
  spec.grant_types = std::move(grants);
  const bool service = has_grant(spec, kClientCredentialsGrant);
  if (service && spec.is_public) return fail_field("grant_types", "grant_types: a public client cannot use client_credentials");
  if (service && !spec.role) return fail_field("role", "role is required for client_credentials (user, writer, editor, admin)");
  if (!service && spec.role) return fail_field("role", "role is only for a client of the client_credentials grant");
  if (!spec.jwks.empty() && !spec.jwks_uri.empty()) return fail_field("jwks", "jwks or jwks_uri, not both");
  if ((!spec.jwks.empty() || !spec.jwks_uri.empty()) && spec.is_public) {
    return fail_field("jwks", "jwks: a public client has no keys: it does not authenticate");
  }
  if (!spec.jwks.empty()) {
    if (auto keys = jose::ClientKeys::parse(spec.jwks); !keys) return std::unexpected(keys.error());
    spec.jwks = Json::parse(spec.jwks, 8)->dump();  // compact
  }
  if (!spec.jwks_uri.empty()) {
    if (auto ok = validate_redirect_uri(spec.jwks_uri, "jwks_uri"); !ok) return ok;
  }
  return {};
}

}  // namespace

bool has_grant(const OidcClient& client, std::string_view grant) {
  if (client.grant_types.empty()) return grant == kAuthorizationCodeGrant;
  return std::ranges::find(client.grant_types, grant) != client.grant_types.end();
}

std::string not_registered_for(std::string_view grant) {
  const std::string_view name = grant == kAuthorizationCodeGrant ? "the authorization code grant"
                                : grant == kDeviceCodeGrant       ? "the device authorization grant"
                                                                  : grant;
  return "the client is not registered for " + std::string(name);
}

std::string_view auth_method(const OidcClient& client) {
  if (client.is_public) return "none";
  if (!client.jwks.empty() || !client.jwks_uri.empty()) return "private_key_jwt";
  return "client_secret_basic";
}

Result<std::shared_ptr<const User>> service_user(const OidcClient& client) {
  if (!has_grant(client, kClientCredentialsGrant) || !client.role) {
    return fail(Errc::invalid_token, "the client has no client_credentials grant now");
  }
  auto user = std::make_shared<User>();
  user->id = std::string(kServiceSubjectPrefix) + client.id;
  user->username = user->id;
  user->fullname = client.name;
  user->role = *client.role;
  user->created_at = client.created_at;
  // Its tokens carry gen 0; a token revoked one by one (POST /revoke) is on
  // the revocation list, which the guard reads for every service token
  // (TokenRevocation::check reads it for a token issued before this time).
  user->last_revocation = std::numeric_limits<std::int64_t>::max();
  return std::shared_ptr<const User>(std::move(user));
}

const std::vector<std::string>& supported_oidc_scopes() {
  static const std::vector<std::string> scopes{"openid", "profile", "email", "roles", "offline_access"};
  return scopes;
}

Result<void> validate_redirect_uri(std::string_view uri, std::string_view field) {
  const std::string name(field);
  if (uri.empty() || uri.size() > kMaxUri) return fail_field(name, name + " must be 1 to 2000 characters");
  for (const unsigned char c : uri) {
    if (c <= 0x20 || c >= 0x7f) return fail_field(name, name + " must not contain spaces, control or non-ASCII characters");
  }
  if (uri.find('#') != std::string_view::npos) return fail_field(name, name + " must not contain a fragment");
  std::string_view rest;
  bool https = false;
  if (uri.starts_with("https://")) {
    rest = uri.substr(8);
    https = true;
  } else if (uri.starts_with("http://")) {
    rest = uri.substr(7);
  } else {
    return fail_field(name, name + " must be an absolute https URI (http only to a loopback host)");
  }
  const auto authority = rest.substr(0, std::min(rest.find_first_of("/?"), rest.size()));
  if (authority.empty() || authority.find('@') != std::string_view::npos) {
    return fail_field(name, name + " must name a host and no user info");
  }
  std::string_view host = authority;
  if (host.starts_with('[')) {
    host = host.substr(0, host.find(']') == std::string_view::npos ? host.size() : host.find(']') + 1);
  } else if (const auto colon = host.find(':'); colon != std::string_view::npos) {
    host = host.substr(0, colon);
  }
  if (host.empty()) return fail_field(name, name + " must name a host");
  if (!https && !loopback_host(host)) {
    return fail_field(name, name + " must use https (http only to localhost, [::1] or a literal 127.0.0.0/8 address)");
  }
  return {};
}

// A URI registered before the rules were tightened (an http "127.attacker.example")
// is never followed: registered and still acceptable.
bool has_redirect_uri(const OidcClient& client, std::string_view uri) {
  return std::ranges::find(client.redirect_uris, uri) != client.redirect_uris.end() && validate_redirect_uri(uri).has_value();
}

bool has_post_logout_uri(const OidcClient& client, std::string_view uri) {
  return std::ranges::find(client.post_logout_uris, uri) != client.post_logout_uris.end() &&
         validate_redirect_uri(uri, "post_logout_redirect_uri").has_value();
}

Result<IssuedClient> OidcClients::add(OidcClient spec, std::int64_t now) {
  spec.name = std::string(text::trim(spec.name));
  if (spec.name.empty() || spec.name.size() > kMaxName || text::has_control(spec.name)) {
    return fail_field("name", "name must be 1 to 100 characters without control characters");
  }
  if (auto ok = validate_service(spec); !ok) return std::unexpected(ok.error());
  const bool code_flow = has_grant(spec, kAuthorizationCodeGrant);
  if (spec.redirect_uris.empty() && code_flow) return fail_field("redirect_uri", "at least one redirect_uri is required");
  if (auto ok = validate_uris(spec.redirect_uris, "redirect_uri"); !ok) return std::unexpected(ok.error());
  if (auto ok = validate_uris(spec.post_logout_uris, "post_logout_redirect_uri"); !ok) return std::unexpected(ok.error());
  if (!spec.backchannel_logout_uri.empty()) {
    if (auto ok = validate_redirect_uri(spec.backchannel_logout_uri, "backchannel_logout_uri"); !ok) {
      return std::unexpected(ok.error());
    }
  }
  // A user signs in for the client by a code or on a device: the user's scopes.
  const bool for_users = code_flow || has_grant(spec, kDeviceCodeGrant);
  if (spec.scopes.empty() && for_users) spec.scopes = {"openid", "profile", "email", "roles"};
  for (const auto& scope : spec.scopes) {
    if (std::ranges::find(supported_oidc_scopes(), scope) == supported_oidc_scopes().end()) {
      return fail_field("scope", "unknown scope '" + scope + "' (openid, profile, email, roles, offline_access)");
    }
  }
  if (code_flow && std::ranges::find(spec.scopes, "openid") == spec.scopes.end()) {
    return fail_field("scope", "the scopes must include openid");
  }
  IssuedClient issued;
  spec.id = "client_" + crypto::random_hex(12);
  spec.created_at = now;
  spec.secret_sha256.clear();
  spec.secret_hmac.clear();
  if (auth_method(spec) == "client_secret_basic") {
    issued.secret = crypto::random_token(32);
    spec.secret_hmac = secret_digest(issued.secret);
  }
  const std::string value = to_json(spec, true).dump();
  auto done = store_.write([&](StoreTxn& txn) -> Result<void> {
    auto existing = txn.get_entry(kNamespace, spec.id);
    if (!existing) return std::unexpected(existing.error());
    if (*existing) return fail(Errc::conflict, "client id collision");
    return txn.put_entry(kNamespace, spec.id, value, 0);
  });
  if (!done) return std::unexpected(done.error());
  issued.client = std::move(spec);
  return issued;
}

Result<std::vector<OidcClient>> OidcClients::list() {
  return read_value(store_, [&](StoreTxn& txn) -> Result<std::vector<OidcClient>> {
    auto entries = txn.list_entries(kNamespace);
    if (!entries) return std::unexpected(entries.error());
    std::vector<OidcClient> clients;
    for (const auto& [id, value] : *entries) {
      auto client = from_json(value);
      if (client) clients.push_back(std::move(*client));
    }
    return clients;
  });
}

Result<OidcClient> OidcClients::find(std::string_view id) {
  if (!valid_id(id)) return fail(Errc::not_found, "no such client");
  auto value = read_value(store_, [&](StoreTxn& txn) { return txn.get_entry(kNamespace, id); });
  if (!value) return std::unexpected(value.error());
  if (!*value) return fail(Errc::not_found, "no such client");
  return from_json(**value);
}

Result<ClientRemoval> OidcClients::remove(std::string_view id) {
  if (!valid_id(id)) return fail(Errc::not_found, "no such client");
  ClientRemoval removal;
  auto done = store_.write([&](StoreTxn& txn) -> Result<void> {
    removal = {};  // the work may run again (a backend's retry)
    auto existing = txn.get_entry(kNamespace, id);
    if (!existing) return std::unexpected(existing.error());
    if (!*existing) return fail(Errc::not_found, "no such client");
    if (auto ok = txn.delete_entry(kNamespace, id); !ok) return ok;
    auto families = end_client_families(txn, id);
    if (!families) return std::unexpected(families.error());
    auto consents = revoke_client_consents(txn, id);
    if (!consents) return std::unexpected(consents.error());
    removal = {*families, *consents};
    return {};
  });
  if (!done) return std::unexpected(done.error());
  return removal;
}

std::string describe_removal(std::string_view client_id, const ClientRemoval& removal) {
  return "client " + std::string(client_id) + " removed: " + std::to_string(removal.refresh_families) +
         " refresh families ended, " + std::to_string(removal.consents) +
         " consents deleted, its access tokens refused from now on";
}

Result<IssuedClient> OidcClients::rotate_secret(std::string_view id) {
  if (!valid_id(id)) return fail(Errc::not_found, "no such client");
  IssuedClient issued;
  issued.secret = crypto::random_token(32);
  auto done = store_.write([&](StoreTxn& txn) -> Result<void> {
    auto existing = txn.get_entry(kNamespace, id);
    if (!existing) return std::unexpected(existing.error());
    if (!*existing) return fail(Errc::not_found, "no such client");
    auto client = from_json(**existing);
    if (!client) return std::unexpected(client.error());
    if (client->is_public) return fail_field("client_id", "a public client has no secret");
    if (auth_method(*client) != "client_secret_basic") {
      return fail_field("client_id", "a private_key_jwt client has no secret: it signs with its own keys");
    }
    client->secret_sha256.clear();
    client->secret_hmac = secret_digest(issued.secret);
    issued.client = *client;
    return txn.put_entry(kNamespace, id, to_json(*client, true).dump(), 0);
  });
  if (!done) return std::unexpected(done.error());
  return issued;
}

std::string OidcClients::secret_digest(std::string_view secret) const { return crypto::to_hex(secret_mac_->mac(secret)); }

Result<OidcClient> OidcClients::authenticate(std::string_view id, std::string_view secret) {
  // A digest is computed and compared whether or not the client exists.
  const std::string presented = secret_digest(secret);
  auto client = find(id);
  if (!client && client.error().code != Errc::not_found) return std::unexpected(client.error());
  const bool usable = client && !client->is_public && !secret.empty() && auth_method(*client) == "client_secret_basic";
  const bool legacy = client && client->secret_hmac.empty() && !client->secret_sha256.empty();
  const std::string expected = client && !client->secret_hmac.empty() ? client->secret_hmac : std::string(64, '0');
  bool same = crypto::equal_constant_time(presented, expected);
  if (legacy) same = crypto::equal_constant_time(legacy_digest(secret), client->secret_sha256);
  if (!usable || !same) return fail(Errc::invalid_login, "client authentication failed");
  if (legacy) {
    // Kept as the keyed hash from now on. Only while the entry still holds
    // the digest just checked: a rotation in between wins.
    const std::string old_digest = client->secret_sha256;
    auto rewritten = store_.write([&](StoreTxn& txn) -> Result<void> {
      auto existing = txn.get_entry(kNamespace, id);
      if (!existing || !*existing) return {};
      auto stored = from_json(**existing);
      if (!stored || stored->secret_sha256 != old_digest || !stored->secret_hmac.empty()) return {};
      stored->secret_sha256.clear();
      stored->secret_hmac = presented;
      return txn.put_entry(kNamespace, id, to_json(*stored, true).dump(), 0);
    });
    if (rewritten) {
      client->secret_sha256.clear();
      client->secret_hmac = presented;
    }  // else: still the SHA-256 form, checked so again next time
  }
  return client;
}

Result<OidcClient> set_backchannel_logout(Store& store, std::string_view id, std::string_view uri, bool session_required) {
  if (!valid_id(id)) return fail(Errc::not_found, "no such client");
  if (!uri.empty()) {
    if (auto ok = validate_redirect_uri(uri, "backchannel_logout_uri"); !ok) return std::unexpected(ok.error());
  }
  OidcClient changed;
  auto done = store.write([&](StoreTxn& txn) -> Result<void> {
    auto client = find_client(txn, id);
    if (!client) return std::unexpected(client.error());
    if (!*client) return fail(Errc::not_found, "no such client");
    changed = std::move(**client);
    changed.backchannel_logout_uri = std::string(uri);
    changed.backchannel_logout_session_required = !uri.empty() && session_required;
    return txn.put_entry(kNamespace, id, to_json(changed, true).dump(), 0);
  });
  if (!done) return std::unexpected(done.error());
  return changed;
}

Result<std::optional<OidcClient>> find_client(StoreTxn& txn, std::string_view id) {
  if (!valid_id(id)) return std::optional<OidcClient>();
  auto value = txn.get_entry(kNamespace, id);
  if (!value) return std::unexpected(value.error());
  if (!*value) return std::optional<OidcClient>();
  auto client = from_json(**value);
  if (!client) return std::unexpected(client.error());
  return std::optional<OidcClient>(std::move(*client));
}

Json describe_client(const OidcClient& client) { return to_json(client, false); }

}  // namespace authd
