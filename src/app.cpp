#include "app.hpp"

#include "authd/clock.hpp"
#include "authd/signing_key.hpp"
#include "log.hpp"

namespace authd {

Result<std::unique_ptr<Database>> open_database(const Config& config) {
  return Database::open(StoreOptions{
      .directory = config.state_dir,
      .map_size_bytes = config.map_size_mb << 20,
      .sync = config.sync_writes,
  });
}

Result<std::unique_ptr<App>> App::create(Config config) {
  auto app = std::make_unique<App>();
  auto database = open_database(config);
  if (!database) return std::unexpected(database.error());
  app->database = std::move(*database);

  auto key = config.signing_key_hex.empty() ? load_or_create_signing_key(config.key_file())
                                            : signing_key_from_hex(config.signing_key_hex);
  if (!key) return std::unexpected(key.error());
  auto tokens = TokenService::create(std::move(*key), config.token);
  if (!tokens) return std::unexpected(tokens.error());

  app->tokens = std::make_unique<TokenService>(std::move(*tokens));
  app->users = std::make_unique<UserStore>(*app->database);
  app->records = std::make_unique<RecordStore>(*app->database);
  app->hasher = std::make_unique<PasswordHasher>(config.argon2);
  app->guard = std::make_unique<Guard>(*app->tokens, *app->users);
  app->accounts = std::make_unique<Accounts>(*app->users, *app->hasher, config.credentials);
  app->throttle = std::make_unique<SigninThrottle>(*app->database, config.throttle);
  if (auto purged = app->throttle->purge(unix_now()); !purged) {
    log::warn("cannot purge old sign-in counters: " + purged.error().message);
  }
  for (const auto& provider : config.oauth.providers) {
    app->oauth_clients.emplace(provider.name, std::make_unique<OAuthClient>(
        provider, HttpTimeouts{config.oauth.connect_timeout, config.oauth.total_timeout}));
  }
  app->config = std::move(config);
  return app;
}

}  // namespace authd
