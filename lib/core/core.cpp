#include "authd/core.hpp"

#include <cstdlib>

#include "authd/clock.hpp"

namespace authd {

Core::Core(CoreSettings settings, std::unique_ptr<Store> store, TokenService tokens)
    : settings_(std::move(settings)),
      store_(std::move(store)),
      tokens_(std::move(tokens)),
      hasher_(settings_.argon2),
      accounts_(*store_, hasher_, settings_.credentials),
      throttle_(*store_, settings_.throttle),
      records_(*store_),
      guard_(tokens_, *store_) {
  const HttpTimeouts timeouts{settings_.oauth.connect_timeout, settings_.oauth.total_timeout};
  for (const auto& provider : settings_.oauth.providers) {
    oauth_clients_.emplace(provider.name, std::make_unique<OAuthClient>(provider, timeouts));
  }
}

std::filesystem::path signing_key_path(const CoreSettings& settings) {
  return settings.key.file.empty() ? settings.store.lmdb.directory / "signing.key" : settings.key.file;
}

Result<std::unique_ptr<Core>> Core::open(CoreSettings settings) {
  settings.key.file = signing_key_path(settings);
  auto store = open_store(settings.store);
  if (!store) return std::unexpected(store.error());
  auto key = load_signing_key(settings.key);
  if (!key) return std::unexpected(key.error());
  auto tokens = TokenService::create(std::move(*key), settings.token);
  if (!tokens) return std::unexpected(tokens.error());
  return std::unique_ptr<Core>(new Core(std::move(settings), std::move(*store), std::move(*tokens)));
}

Result<std::unique_ptr<Core>> Core::from_environment(const std::filesystem::path& default_config) {
  const EnvLookup env = [](const char* name) { return std::getenv(name); };
  const auto source = settings::config_source(env, default_config);
  CoreSettings settings;
  settings::Loader loader;
  CoreSettingsTables tables(settings, loader);
  loader.skip_unknown_names();  // authd's own server settings share the file
  if (auto ok = loader.load(source.file, source.optional, env); !ok) return std::unexpected(ok.error());
  return open(std::move(settings));
}

OAuthClient* Core::oauth_client(std::string_view provider) noexcept {
  const auto found = oauth_clients_.find(provider);
  return found == oauth_clients_.end() ? nullptr : found->second.get();
}

Result<Principal> Core::check(std::string_view authorization, std::optional<Capability> required) const {
  return guard_.check(authorization, required, unix_now());
}

Result<std::optional<Principal>> Core::check_request(std::string_view method, std::string_view path,
                                                     std::string_view authorization,
                                                     std::string_view auth_cookie) const {
  const auto requirement = settings_.access_rules.decide(method, path);
  if (requirement.denied) return fail(Errc::not_permitted, "no access rule lets anyone through");
  if (!requirement.needs_token) return std::optional<Principal>();
  std::string from_cookie;
  if (authorization.empty() && !auth_cookie.empty()) {
    from_cookie = "Bearer " + std::string(auth_cookie);
    authorization = from_cookie;
  }
  auto principal = guard_.check(authorization, requirement.capability, unix_now());
  if (!principal) return std::unexpected(principal.error());
  return std::optional<Principal>(std::move(*principal));
}

}  // namespace authd
