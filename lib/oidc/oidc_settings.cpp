#include "authd/oidc_settings.hpp"

namespace authd {

std::vector<settings::Setting> oidc_settings(OidcSettings& s) {
  return {
      settings::boolean("oidc_provider", s.provider,
                        "authd is an OpenID Connect provider for registered clients (authctl client add)"),
      settings::choice("id_token_algorithm", s.id_token_algorithm,
                       {{"RS256", crypto::KeyAlgorithm::rs256},
                        {"ES256", crypto::KeyAlgorithm::es256},
                        {"EdDSA", crypto::KeyAlgorithm::ed25519}},
                       "signature of ID tokens (keys in <state_dir>/id-token-keys, published in the JWKS)"),
  };
}

}  // namespace authd
