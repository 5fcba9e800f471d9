#include "authd/oidc_settings.hpp"

namespace authd {

std::vector<settings::Setting> oidc_settings(OidcSettings& s) {
  return settings::grouped("OpenID Connect provider", {
      settings::boolean("oidc_provider", s.provider,
                        "authd is an OpenID Connect provider: it signs the users of registered applications "
                        "(`authctl client add`) in, and its ID-token keys are made and published in "
                        "/.well-known/jwks.json (docs/openid-provider.md)."),
      settings::choice("id_token_algorithm", s.id_token_algorithm,
                       {{"RS256", crypto::KeyAlgorithm::rs256},
                        {"ES256", crypto::KeyAlgorithm::es256},
                        {"EdDSA", crypto::KeyAlgorithm::ed25519}},
                       "The signature of ID tokens: RS256 (every relying party accepts it), ES256 or EdDSA. The "
                       "keys are in `<state_dir>/id-token-keys` (store = lmdb) or the database (store = "
                       "postgresql)."),
      settings::text("oidc_introspection_clients", s.introspection_clients,
                     "Space-separated client ids of confidential clients (resource servers) that may introspect "
                     "the tokens of every client at POST /introspect; any other client introspects only the "
                     "tokens issued to it, and another client's are {\"active\":false} to it. Empty by default."),
      settings::seconds("backchannel_logout_retry_max", s.backchannel_logout_retry_max, 1, 24 * 3600,
                        "Back-channel logout: the longest wait, in seconds, between two attempts to deliver one "
                        "logout token to a relying party that did not answer 2xx (the waits double from 2 s)."),
      settings::seconds("backchannel_logout_max_age", s.backchannel_logout_max_age, 10, 30LL * 24 * 3600,
                        "Back-channel logout: a logout token not delivered within this many seconds of the "
                        "sign-out is given up (an audit line `backchannel_logout` with outcome `dropped`)."),
      settings::seconds("backchannel_logout_lease", s.backchannel_logout_lease, 3, 3600,
                        "Back-channel logout: how long one sender (one authd process, on any node) holds a logout "
                        "it is delivering; a sender that dies meanwhile leaves it to another after this many "
                        "seconds. Each POST is cut off two seconds before its lease ends (and after 10 s at most), "
                        "so no two senders hold one logout at once."),
      settings::seconds("oidc_device_poll_interval", s.device_poll_interval, 1, 60,
                        "Device authorization grant (RFC 8628): the interval, in seconds, a device is told to "
                        "wait between two polls of POST /token; a device that polls sooner gets slow_down and "
                        "5 s more."),
  });
}

}  // namespace authd
