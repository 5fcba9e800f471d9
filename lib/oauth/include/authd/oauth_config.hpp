// Third-party sign-in settings: one or more OAuth 2.0 / OpenID Connect providers.
//
// In conf/authd.conf:            oauth_<setting> = ...        (the provider named "default")
//                                oauth.<name>.<setting> = ...  (a named provider)
// In the environment:            AUTHD_OAUTH_<SETTING>         (the provider named "default")
//                                AUTHD_OAUTH_<NAME>_<SETTING>  (for names listed in
//                                oauth_providers / AUTHD_OAUTH_PROVIDERS, or seen in the file)
// Settings: issuer, client_id, client_secret, redirect_uri, scopes, authorization_url,
// token_url, userinfo_url, jwks_url, token_auth (post|basic), subject_claim, username_claim.
#pragma once

#include <chrono>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "authd/settings.hpp"

namespace authd {

enum class TokenEndpointAuth { post, basic };  // client_secret_post / client_secret_basic

struct OAuthProvider {
  std::string name;               // lower case; "default" for the unnamed provider
  std::string issuer;             // OpenID Connect: endpoints from <issuer>/.well-known/openid-configuration
  std::string client_id;
  std::string client_secret;      // never logged
  std::string redirect_uri;       // where the provider sends the browser back: .../oauth
  std::string scopes;             // space separated; default "openid profile email" with an issuer
  std::string authorization_url;  // explicit endpoints (override discovery, or plain OAuth 2.0)
  std::string token_url;
  std::string userinfo_url;
  std::string jwks_url;
  TokenEndpointAuth token_auth = TokenEndpointAuth::post;
  std::string subject_claim;      // default: "sub" (OpenID Connect), "id" (plain OAuth 2.0)
  std::string username_claim;     // default: "preferred_username" (OIDC), "login" (OAuth 2.0)

  // OpenID Connect (identity from a verified ID token) rather than plain
  // OAuth 2.0 (identity from the userinfo endpoint).
  bool openid() const { return !issuer.empty() || !jwks_url.empty(); }
};

struct OAuthSettings {
  std::vector<OAuthProvider> providers;  // sorted by name
  // false (the spec): every third-party sign-in sets role user. true: a role
  // an operator set with authctl survives later third-party sign-ins.
  bool keep_role = false;
  std::chrono::milliseconds connect_timeout{3000};
  std::chrono::milliseconds total_timeout{10000};
  std::chrono::seconds state_ttl{600};  // how long a started sign-in may take

  const OAuthProvider* find(std::string_view name) const {
    for (const auto& provider : providers) {
      if (provider.name == name) return &provider;
    }
    return nullptr;
  }
};

// oauth_keep_role, oauth_connect_timeout_ms, oauth_timeout_ms, oauth_state_ttl.
std::vector<settings::Setting> oauth_settings(OAuthSettings& settings);

// The provider settings (oauth_<setting>, oauth.<name>.<setting>,
// oauth_providers and their AUTHD_OAUTH_* variables), whose names are not
// fixed; finish() validates them into `target.providers`.
class OAuthProviderSettings final : public settings::DynamicSettings {
 public:
  explicit OAuthProviderSettings(OAuthSettings& target) : target_(target) {}
  Result<bool> assign(std::string_view name, std::string_view value) override;
  Result<void> assign_environment(const EnvLookup& env) override;
  // AUTHD_OAUTH_PROVIDERS, AUTHD_OAUTH_<SETTING>, and AUTHD_OAUTH_<NAME>_<SETTING>
  // for each provider listed (in the file or the environment) or seen in the file.
  std::vector<std::string> variables() const override;
  Result<void> finish() override;
  std::vector<std::string> names() const override;
  std::vector<std::string> describe() const override;
  std::vector<settings::Setting> reference() const override;

  // issuer, client_id, ... token_auth.
  static std::vector<std::string> provider_setting_names();

 private:
  Result<void> set(const std::string& provider, std::string_view setting, std::string_view value);
  OAuthSettings& target_;
  std::map<std::string, OAuthProvider> providers_;
  std::set<std::string> declared_;
};

}  // namespace authd
