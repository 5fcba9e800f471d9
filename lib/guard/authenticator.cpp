#include "authd/authenticator.hpp"

#include <cstdlib>

#include "authd/clock.hpp"
#include "authd/signing_key.hpp"

namespace authd {

Result<std::unique_ptr<Database>> open_database(const Config& config) {
  return Database::open(StoreOptions{
      .directory = config.state_dir,
      .map_size_bytes = config.map_size_mb << 20,
      .sync = config.sync_writes,
  });
}

Result<std::unique_ptr<Authenticator>> Authenticator::from_environment(const std::filesystem::path& default_config) {
  const EnvLookup env = [](const char* name) { return std::getenv(name); };
  const auto source = config_source(env, default_config);
  auto config = load_config(source.file, env, source.optional);
  if (!config) return std::unexpected(config.error());
  return from_config(std::move(*config));
}

Result<std::unique_ptr<Authenticator>> Authenticator::from_config(Config config) {
  std::unique_ptr<Authenticator> auth(new Authenticator());
  auto database = open_database(config);
  if (!database) return std::unexpected(database.error());
  auto key = config.signing_key_hex.empty() ? load_or_create_signing_key(config.key_file())
                                            : signing_key_from_hex(config.signing_key_hex);
  if (!key) return std::unexpected(key.error());
  auto tokens = TokenService::create(std::move(*key), config.token);
  if (!tokens) return std::unexpected(tokens.error());

  auth->database_ = std::move(*database);
  auth->users_ = std::make_unique<UserStore>(*auth->database_);
  auth->tokens_ = std::make_unique<TokenService>(std::move(*tokens));
  auth->guard_ = std::make_unique<Guard>(*auth->tokens_, *auth->users_);
  auth->config_ = std::move(config);
  return auth;
}

Result<Principal> Authenticator::check(std::string_view authorization, std::optional<Capability> required) const {
  return guard_->check(authorization, required, unix_now());
}

Result<std::optional<Principal>> Authenticator::check_request(std::string_view method, std::string_view path,
                                                              std::string_view authorization,
                                                              std::string_view auth_cookie) const {
  const auto requirement = config_.access_rules.decide(method, path);
  if (!requirement.needs_token) return std::optional<Principal>();
  std::string from_cookie;
  if (authorization.empty() && !auth_cookie.empty()) {
    from_cookie = "Bearer " + std::string(auth_cookie);
    authorization = from_cookie;
  }
  auto principal = guard_->check(authorization, requirement.capability, unix_now());
  if (!principal) return std::unexpected(principal.error());
  return std::optional<Principal>(std::move(*principal));
}

}  // namespace authd
