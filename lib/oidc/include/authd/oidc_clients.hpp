// The applications that sign their users in through authd (authd as an
// OpenID Connect provider: docs/openid-provider.md). A client is registered
// by the operator (authctl client add, or POST /admin/clients) and kept in
// the store's namespaced entries ("oidc_client"), as JSON. A confidential
// client's secret is shown once and stored only as its HMAC-SHA256 under a
// server-side key derived from authd's signing key (never in the store: a
// copy of the database alone cannot test guesses); the secret is 32 random
// bytes, so no slow password hash is needed, and authentication costs
// microseconds. Digests are compared in constant time. Redirect URIs match
// exactly: no wildcards, no prefixes, no normalisation (RFC 9700 §2.1).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <memory>
#include <optional>

#include "authd/crypto.hpp"
#include "authd/error.hpp"
#include "authd/json.hpp"
#include "authd/roles.hpp"
#include "authd/store.hpp"
#include "authd/user.hpp"

namespace authd {

struct OidcClient {
  std::string id;                              // "client_" + 24 hex characters
  std::string name;                            // for the consent page and lists
  bool is_public = false;                      // no secret: PKCE S256 required instead
  bool first_party = false;                    // the site's own app: no consent page
  std::vector<std::string> redirect_uris;      // at least one
  std::vector<std::string> post_logout_uris;   // for RP-initiated logout
  std::vector<std::string> scopes;             // what it may ask for
  bool require_par = false;                    // /authorize only with a pushed request (RFC 9126 §6)
  std::string secret_sha256;                   // hex; "" for a public client
  std::int64_t created_at = 0;                 // Unix seconds
  // OpenID Connect Back-Channel Logout 1.0 (authd/backchannel_logout.hpp):
  // where logout tokens are POSTed ("" = none), and whether it needs `sid`
  // in them (authd always sends it).
  std::string backchannel_logout_uri{};
  bool backchannel_logout_session_required = false;
  // Service clients and private_key_jwt (issue 43 part 3).
  std::vector<std::string> grant_types;  // "authorization_code" (the default), "client_credentials"
  std::optional<Role> role;              // client_credentials: the role its own tokens act as
  std::string jwks;                      // private_key_jwt: its public keys (a JWK Set), or
  std::string jwks_uri;                  // where to fetch them (https, http only to loopback)
  // The secret as HMAC-SHA256(server key, secret), hex: what add/rotate_secret
  // store. A client registered before keeps secret_sha256 until it next
  // authenticates, which rewrites it to this form.
  std::string secret_hmac;
};

inline constexpr std::string_view kAuthorizationCodeGrant = "authorization_code";
inline constexpr std::string_view kClientCredentialsGrant = "client_credentials";
// RFC 8628 §3.4 (authd/device_authorizations.hpp); "device_code" is taken for
// it when a client is registered.
inline constexpr std::string_view kDeviceCodeGrant = "urn:ietf:params:oauth:grant-type:device_code";

// Whether the client was registered with `grant` (a client stored before
// grant types existed has the authorization code grant).
bool has_grant(const OidcClient& client, std::string_view grant);
// "the client is not registered for <the grant>": the unauthorized_client
// description wherever a client asks for a grant it was not registered with.
std::string not_registered_for(std::string_view grant);
// Its token_endpoint_auth_method: "none" (public), "private_key_jwt" (jwks
// or jwks_uri) or "client_secret_basic" (which allows client_secret_post too).
std::string_view auth_method(const OidcClient& client);

// The principal a service client's token stands for in the guard: username
// and _id "client:<id>" (authd/token.hpp's kServiceSubjectPrefix), the
// client's role as it is now. Error invalid_token when the client is gone or
// has no client_credentials grant.
Result<std::shared_ptr<const User>> service_user(const OidcClient& client);

// What `add` and `rotate_secret` hand back: the client and, for a
// confidential client, its secret (the only time it is ever seen).
struct IssuedClient {
  OidcClient client;
  std::string secret;
};

// The scopes authd understands, in the order discovery lists them.
const std::vector<std::string>& supported_oidc_scopes();

// A redirect URI authd accepts to register: absolute, https (http only to a
// loopback host, RFC 8252 §7.3, §8.3: localhost, [::1] or a literal
// 127.0.0.0/8 address in four decimal octets; any other name is https), no fragment, no user info, no spaces or
// control characters, at most 2000 characters. Error: invalid_input (`field`).
Result<void> validate_redirect_uri(std::string_view uri, std::string_view field = "redirect_uri");

// Exact string comparison with each registered URI; a registered URI that
// validate_redirect_uri would refuse today never matches.
bool has_redirect_uri(const OidcClient& client, std::string_view uri);
bool has_post_logout_uri(const OidcClient& client, std::string_view uri);

// What removing a client ended (OidcClients::remove).
struct ClientRemoval {
  std::size_t refresh_families = 0;
  std::size_t consents = 0;
};

// "client X removed: N refresh families ended, M consents deleted, ..." for the audit log.
std::string describe_removal(std::string_view client_id, const ClientRemoval& removal);

class OidcClients {
 public:
  // `secret_key`: the key of the secrets' HMAC (Core derives it from the
  // signing key, the same on every node).
  OidcClients(Store& store, const crypto::Sha256Digest& secret_key)
      : store_(store), secret_mac_(std::make_shared<crypto::HmacSha256>(secret_key)) {}

  // Registers `spec` (id, secret and created_at are set here). An empty
  // scope list means "openid profile email roles" (none for a client of the
  // client_credentials grant alone, which needs no redirect_uri). A client
  // with jwks or jwks_uri authenticates with private_key_jwt and gets no
  // secret. Errors: invalid_input (name, redirect_uri,
  // post_logout_redirect_uri, scope, grant_types, role, jwks, jwks_uri),
  // storage_full.
  Result<IssuedClient> add(OidcClient spec, std::int64_t now);
  // Every client, by id. Errors: unavailable, internal.
  Result<std::vector<OidcClient>> list();
  // Error: not_found.
  Result<OidcClient> find(std::string_view id);
  // Removes the client and, in the same transaction, ends every refresh
  // family it holds and deletes every user's consent to it; its access tokens
  // stop working at once because /userinfo finds no client for them (its
  // authorization codes lapse: no /token call can authenticate as it).
  // What was revoked, for the audit line. Error: not_found.
  Result<ClientRemoval> remove(std::string_view id);
  // A new secret; the old one stops working at once. Errors: not_found,
  // invalid_input (a public client has no secret).
  Result<IssuedClient> rotate_secret(std::string_view id);
  // The client when `secret` is its secret. Every failure is invalid_login
  // (no hint whether the id exists), with the same work done either way. A
  // secret still kept as its SHA-256 (registered before the HMAC) is checked
  // against that and, once it matched, stored as its HMAC instead.
  Result<OidcClient> authenticate(std::string_view id, std::string_view secret);

 private:
  std::string secret_digest(std::string_view secret) const;

  Store& store_;
  std::shared_ptr<const crypto::HmacSha256> secret_mac_;
};

// Sets (or, with "", clears) the client's back-channel logout URI and
// whether it needs `sid`. Errors: not_found, invalid_input
// (backchannel_logout_uri: validated as a redirect URI).
Result<OidcClient> set_backchannel_logout(Store& store, std::string_view id, std::string_view uri, bool session_required);

// The client `id` as stored, read in `txn`; nullopt when there is none.
Result<std::optional<OidcClient>> find_client(StoreTxn& txn, std::string_view id);

// The client as JSON for the admin API and authctl (never its secret hash):
// with grant_types, token_endpoint_auth_method, and role, jwks, jwks_uri when set.
Json describe_client(const OidcClient& client);

}  // namespace authd
