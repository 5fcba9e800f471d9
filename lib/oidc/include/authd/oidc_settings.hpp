// Settings of authd as an OpenID Connect provider (docs/openid-provider.md).
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "authd/crypto.hpp"
#include "authd/key_pair.hpp"
#include "authd/settings.hpp"

namespace authd {

struct OidcSettings {
  // oidc_provider: publish the ID-token keys (and, as the provider grows,
  // its endpoints). Off by default: nothing changes for a site that does not
  // use it.
  bool provider = false;
  // id_token_algorithm: RS256 (what every relying party must accept), ES256
  // or EdDSA. The keys are a key ring of their own: <state_dir>/id-token-keys
  // with LMDB, the store's "id_token_signing_*" entries with PostgreSQL.
  crypto::KeyAlgorithm id_token_algorithm = crypto::KeyAlgorithm::rs256;
  // oidc_introspection_clients: space-separated ids of confidential clients
  // (resource servers) that may introspect every client's tokens at POST
  // /introspect; every other client introspects only its own.
  std::string introspection_clients;
  // backchannel_logout_retry_max: the longest wait between two attempts at
  // one logout token (backoff 2, 4, 8, ... seconds up to it).
  std::chrono::seconds backchannel_logout_retry_max{300};
  // backchannel_logout_max_age: a logout not delivered by then is dropped (audited).
  std::chrono::seconds backchannel_logout_max_age{24 * 3600};
  // backchannel_logout_lease: how long a sender's claim on one logout holds;
  // one that dies mid-send leaves the logout to another after it.
  std::chrono::seconds backchannel_logout_lease{60};
  // device_poll_interval: how often a device may poll /token (RFC 8628 §3.2 interval).
  std::chrono::seconds device_poll_interval{5};
  // Not a setting: the key of the client secrets' HMAC, derived by
  // Core::open from the signing key (the same on every node, never in the
  // store; authd/oidc_clients.hpp).
  crypto::Sha256Digest client_secret_key{};
};

std::vector<settings::Setting> oidc_settings(OidcSettings& s);

}  // namespace authd
