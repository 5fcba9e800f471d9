#include "app.hpp"

#include "authd/clock.hpp"
#include "log.hpp"

namespace authd {

Result<std::unique_ptr<App>> App::create(Config config) {
  auto auth = Authenticator::from_config(config);
  if (!auth) return std::unexpected(auth.error());
  auto app = std::make_unique<App>();
  app->auth = std::move(*auth);
  app->users = &app->auth->users();
  app->tokens = &app->auth->tokens();
  app->guard = &app->auth->guard();
  app->records = std::make_unique<RecordStore>(app->auth->database());
  app->hasher = std::make_unique<PasswordHasher>(config.argon2);
  app->accounts = std::make_unique<Accounts>(*app->users, *app->hasher, config.credentials);
  app->throttle = std::make_unique<SigninThrottle>(app->auth->database(), config.throttle);
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
