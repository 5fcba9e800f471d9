// The reusable front door of the core, for any server that wants authd's
// users and tokens to protect its own routes:
//
//   auto auth = authd::Authenticator::from_environment();          // same settings as authd
//   auto who = (*auth)->check(authorization_header, authd::Capability::delete_);
//   if (!who) { auto e = authd::http::to_http(who.error()); /* send e.status, e.headers, e.body */ }
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "authd/config.hpp"
#include "authd/error.hpp"
#include "authd/guard.hpp"
#include "authd/store.hpp"
#include "authd/token.hpp"

namespace authd {

class Authenticator {
 public:
  // Reads the settings exactly as authd does: $AUTHD_CONFIG or `default_config`
  // (optional), then AUTHD_<NAME> variables. Opens the LMDB environment and
  // loads the signing key (creating it on first use). Errors: config, io.
  static Result<std::unique_ptr<Authenticator>> from_environment(const std::filesystem::path& default_config = {});
  static Result<std::unique_ptr<Authenticator>> from_config(Config config);

  // The bearer guard: token, re-authentication, optional capability.
  Result<Principal> check(std::string_view authorization, std::optional<Capability> required) const;

  // For a request to another application: the access rules decide what the
  // method + path need. The Authorization header is used when present, else
  // the `auth` cookie's token. A public path gives nullopt (no principal).
  Result<std::optional<Principal>> check_request(std::string_view method, std::string_view path,
                                                 std::string_view authorization,
                                                 std::string_view auth_cookie) const;

  const Config& config() const noexcept { return config_; }
  Database& database() noexcept { return *database_; }
  UserStore& users() noexcept { return *users_; }
  const TokenService& tokens() const noexcept { return *tokens_; }
  const Guard& guard() const noexcept { return *guard_; }

 private:
  Authenticator() = default;
  Config config_;
  std::unique_ptr<Database> database_;
  std::unique_ptr<UserStore> users_;
  std::unique_ptr<TokenService> tokens_;
  std::unique_ptr<Guard> guard_;
};

// The LMDB environment named by `config` (state_dir, map_size_mb, sync_writes),
// for tools that need no signing key (authctl).
Result<std::unique_ptr<Database>> open_database(const Config& config);


}  // namespace authd
