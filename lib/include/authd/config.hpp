// Settings: built-in defaults, then the config file (`name = value` lines,
// `#` comments), then environment variables AUTHD_<NAME> (upper case).
// Parsed and validated once at start; an unknown name or a bad value in the
// file is an error, never a surprise at request time.
#pragma once

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "authd/access_rules.hpp"
#include "authd/accounts.hpp"
#include "authd/error.hpp"
#include "authd/oauth_config.hpp"
#include "authd/password.hpp"
#include "authd/return_to.hpp"
#include "authd/throttle.hpp"
#include "authd/token.hpp"

namespace authd {

enum class CookieSecure { automatic, always, never };

struct Config {
  std::filesystem::path state_dir = "./var";          // LMDB environment + signing key
  std::filesystem::path signing_key_file;              // default: <state_dir>/signing.key
  std::string signing_key_hex;                         // if set, used instead of the file
  std::size_t map_size_mb = 1024;                      // LMDB map size
  bool sync_writes = true;                             // fsync every commit
  unsigned workers = 0;                                // request threads; 0 = 2 x cores
  unsigned hash_workers = 0;                           // concurrent password hashes; 0 = cores
  unsigned upstream_workers = 4;                       // concurrent calls to identity providers
  std::size_t queue_limit = 128;                       // requests waiting for either; beyond: 503
  std::size_t max_body_bytes = 65536;
  std::size_t max_json_depth = 16;
  TokenPolicy token;                                   // token_ttl, token_leeway, token_issuer, token_audience
  CookieSecure cookie_secure = CookieSecure::automatic;
  Argon2Params argon2;                                 // argon2_iterations, argon2_memory_kib, argon2_parallelism
  CredentialPolicy credentials;                        // username_max_length, password_min_length, ...
  ThrottlePolicy throttle;                             // signin_throttle, signin_user_threshold, ...
  std::string log_level = "info";                      // error, warn, info, debug
  OAuthSettings oauth;                                 // oauth_*, oauth.<name>.*
  AccessRules access_rules;                            // authorize_rule (repeatable) / AUTHD_AUTHORIZE_RULES
  PortalSettings portal;                               // portal_return_origins, portal_default_return

  std::filesystem::path key_file() const {
    return signing_key_file.empty() ? state_dir / "signing.key" : signing_key_file;
  }
};

// Looks up an environment variable; returns nullptr when unset.
using EnvLookup = std::function<const char*(const char*)>;

// `file` may be empty (defaults + environment only). If `file` is given and
// cannot be read: error config, unless `optional_file` is true and it does
// not exist. Errors: config, naming the file, line and setting.
Result<Config> load_config(const std::filesystem::path& file, const EnvLookup& env,
                           bool optional_file = false);

// The config file to use: $AUTHD_CONFIG if set (must exist), else the default
// compiled in (optional).
struct ConfigSource {
  std::filesystem::path file;
  bool optional = true;
};
ConfigSource config_source(const EnvLookup& env, const std::filesystem::path& compiled_default);

// The names of every setting, as written in the file (for docs and tests).
std::vector<std::string> config_setting_names();

}  // namespace authd
