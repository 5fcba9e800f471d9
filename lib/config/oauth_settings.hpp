// Internal to lib/config/: parsing of the oauth_* / oauth.<name>.* settings.
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>

#include "authd/config.hpp"

namespace authd::config_detail {

// Provider settings collected while reading the file and the environment;
// finish() validates them and moves them into Config::oauth.providers.
class OAuthCollector {
 public:
  // Handles `name` if it is a provider setting ("oauth_client_id",
  // "oauth.github.client_id") or "oauth_providers". Returns false when the
  // name is not an OAuth provider setting at all.
  Result<bool> apply(std::string_view name, std::string_view value);
  // Reads AUTHD_OAUTH_<SETTING> and AUTHD_OAUTH_<NAME>_<SETTING>.
  Result<void> apply_environment(const EnvLookup& env);
  Result<void> finish(OAuthSettings& settings);

  static std::vector<std::string> setting_names();

 private:
  Result<void> set(const std::string& provider, std::string_view setting, std::string_view value);
  std::map<std::string, OAuthProvider> providers_;
  std::set<std::string> declared_;
};

}  // namespace authd::config_detail
