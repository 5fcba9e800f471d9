#include "authd/core.hpp"

#include "authd/username_index.hpp"

#include <cstdlib>

#include "authd/clock.hpp"

namespace authd {
namespace {

// How long a relying party's session is remembered for back-channel logout:
// a day (longer than a usual relying party's own session, e.g.
// mod_auth_openidc's 8 hours), or a refresh family's whole life when longer.
std::chrono::seconds rp_session_ttl(const CoreSettings& settings) {
  const std::chrono::seconds day{24 * 3600};
  return settings.refresh.ttl.count() > 0 ? std::max(day, settings.refresh.max_age) : day;
}

}  // namespace

Core::Core(CoreSettings settings, std::shared_ptr<Store> store, TokenService tokens, std::unique_ptr<AuditLog> audit,
           std::shared_ptr<KeyRing> id_token_ring, mail::Templates templates, Events& events)
    : settings_(std::move(settings)),
      store_(std::move(store)),
      tokens_(std::move(tokens)),
      hasher_(settings_.argon2),
      accounts_(*store_, hasher_, settings_.credentials),
      throttle_(*store_, settings_.throttle),
      records_(*store_),
      directory_(std::make_unique<DirectoryUsers>(settings_.directory, events)),
      guard_(tokens_, *store_),
      revocation_(*store_),
      refresh_(*store_, settings_.refresh),
      mfa_(*store_, settings_.mfa),
      oidc_clients_(*store_, settings_.oidc.client_secret_key),
      client_assertions_(*store_, oidc_clients_),
      oidc_consents_(*store_),
      authorization_codes_(*store_, rp_session_ttl(settings_)),
      pushed_requests_(*store_),
      device_authorizations_(*store_),
      backchannel_logout_({rp_session_ttl(settings_), settings_.oidc.backchannel_logout_max_age}, events),
      audit_(std::move(audit)),
      id_token_ring_(std::move(id_token_ring)),
      passkeys_(*store_, settings_.mfa, tokens_),
      user_admin_(accounts_, revocation_, refresh_, *audit_),
      events_(events),
      mail_templates_(std::move(templates)),
      password_reset_(*store_, accounts_, hasher_, settings_.mail, mail_templates_, events_),
      email_verification_(*store_, settings_.mail, mail_templates_, events_),
      invitations_(*store_, hasher_, accounts_.policy(), mail_templates_, settings_.mail, events_),
      sign_in_(*this, &mail_templates_) {
  guard_.require_second_factor(settings_.mfa.required_roles);
  // Back-channel logout only where authd is an OpenID provider: elsewhere a
  // sign-out costs no look for relying parties.
  if (settings_.oidc.provider) {
    refresh_.on_session_end(&backchannel_logout_);
    revocation_.on_session_end(&backchannel_logout_);
  }
  // A service client's token stands for the client as it is now (re-read on
  // every request, as a user's is).
  guard_.resolve_service_clients([this](std::string_view subject) -> Result<std::shared_ptr<const User>> {
    auto client = oidc_clients_.find(subject.substr(kServiceSubjectPrefix.size()));
    if (!client) {
      if (client.error().code == Errc::not_found) return fail(Errc::invalid_token, "the token's client has been removed");
      return std::unexpected(client.error());
    }
    return service_user(*client);
  });
  guard_.use_directory(directory_.get());
  accounts_.use_directory(directory_.get());
  // A role a directory refresh found changed: the stored account follows
  // (authctl list, the admin API; the guard applies it at once anyway).
  directory_->on_role_changed([this](const std::string& username, const std::string& stable_id, Role role) {
    if (auto followed = accounts_.follow_directory_role(username, stable_id, role); !followed) {
      events_.warning("directory: cannot store " + username + "'s new role: " + followed.error().message);
    }
  });
  const HttpTimeouts timeouts{settings_.oauth.connect_timeout, settings_.oauth.total_timeout};
  for (const auto& provider : settings_.oauth.providers) {
    oauth_clients_.emplace(provider.name, std::make_unique<OAuthClient>(provider, timeouts));
  }
}

std::filesystem::path signing_key_path(const CoreSettings& settings) {
  return settings.key.file.empty() ? settings.store.lmdb.directory / "signing.key" : settings.key.file;
}

std::filesystem::path key_ring_path(const CoreSettings& settings) { return settings.store.lmdb.directory / "keys"; }

std::shared_ptr<KeyStorage> key_storage(const CoreSettings& settings, Store& store) {
  if (shared_store(settings.store)) return store_key_storage(store);
  return directory_key_storage(key_ring_path(settings));
}

std::shared_ptr<KeyStorage> id_token_key_storage(const CoreSettings& settings, Store& store) {
  if (shared_store(settings.store)) return store_key_storage(store, "id_token_signing");
  return directory_key_storage(settings.store.lmdb.directory / "id-token-keys");
}

std::optional<crypto::KeyAlgorithm> key_algorithm(TokenAlgorithm algorithm) {
  switch (algorithm) {
    case TokenAlgorithm::eddsa: return crypto::KeyAlgorithm::ed25519;
    case TokenAlgorithm::es256: return crypto::KeyAlgorithm::es256;
    case TokenAlgorithm::hs256: break;
  }
  return std::nullopt;
}

bool Core::same_database(const StoreSettings& a, const StoreSettings& b) {
  const auto location = [](const std::filesystem::path& directory) {
    std::error_code ec;
    auto canonical = std::filesystem::weakly_canonical(directory, ec);
    return ec ? directory.lexically_normal() : canonical;
  };
  return a.backend == b.backend && a.postgres.database_url == b.postgres.database_url &&
         location(a.lmdb.directory) == location(b.lmdb.directory);
}

Result<std::unique_ptr<Core>> Core::open(CoreSettings settings, Events& events) {
  auto store = open_store(settings.store);
  if (!store) return std::unexpected(store.error());
  return open(std::move(settings), std::shared_ptr<Store>(std::move(*store)), events);
}

Result<std::unique_ptr<Core>> Core::open(CoreSettings settings, const Core& running) {
  if (!same_database(settings.store, running.settings_.store)) return open(std::move(settings), running.events_);
  return open(std::move(settings), running.store_, running.events_);
}

Result<std::unique_ptr<Core>> Core::open(CoreSettings settings, std::shared_ptr<Store> store, Events& events) {
  settings.key.file = signing_key_path(settings);
  // A database that cannot be reached now must not stop the start (503 until
  // it is back): the PostgreSQL store builds the index in a migration anyway.
  if (auto indexed = username_index::build_if_missing(*store); !indexed && indexed.error().code != Errc::unavailable) {
    return std::unexpected(indexed.error());
  }
  auto key = load_signing_key(settings.key);
  if (!key) return std::unexpected(key.error());
  // The outbox's messages are sealed with a key the store never holds.
  const auto key_bytes = key->bytes();
  settings.mail.outbox_key = crypto::SealKey::derive(
      {reinterpret_cast<const unsigned char*>(key_bytes.data()), key_bytes.size()}, "mail outbox");
  // So are the OpenID clients' secrets' HMAC (a key of its own).
  settings.oidc.client_secret_key = crypto::hmac_sha256(
      {reinterpret_cast<const unsigned char*>(key_bytes.data()), key_bytes.size()}, "authd oidc client secrets");
  std::shared_ptr<KeyRing> ring;
  if (const auto algorithm = key_algorithm(settings.token.algorithm)) {
    auto opened = KeyRing::open(key_storage(settings, *store), *algorithm);
    if (!opened) return std::unexpected(opened.error());
    ring = std::move(*opened);
  }
  auto tokens = TokenService::create(std::move(*key), settings.token, std::move(ring));
  if (!tokens) return std::unexpected(tokens.error());
  auto audit = AuditLog::open(settings.audit.log);
  if (!audit) return std::unexpected(audit.error());
  std::shared_ptr<KeyRing> id_token_ring;
  if (settings.oidc.provider) {
    auto opened = KeyRing::open(id_token_key_storage(settings, *store), settings.oidc.id_token_algorithm);
    if (!opened) return std::unexpected(opened.error());
    id_token_ring = std::move(*opened);
  }
  auto built_in = mail::Templates::load({});
  if (!built_in) return std::unexpected(built_in.error());
  return std::unique_ptr<Core>(new Core(std::move(settings), std::move(store), std::move(*tokens), std::move(*audit),
                                        std::move(id_token_ring), std::move(*built_in), events));
}

Result<void> Core::load_mail_templates() {
  auto loaded = mail::Templates::load(settings_.mail.templates);
  if (!loaded) return std::unexpected(loaded.error());
  mail_templates_ = std::move(*loaded);
  return {};
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

std::string Core::issue_access_token(const User& user, std::string_view amr, std::string_view sid) const {
  return issue_access_token(user, amr, sid, {});
}

std::string Core::issue_access_token(const User& user, std::string_view amr, std::string_view sid,
                                     const std::map<std::string, std::string, std::less<>>& more) const {
  return issue_access_token(user, amr, sid, more, unix_now());
}

std::string Core::issue_access_token(const User& user, std::string_view amr, std::string_view sid,
                                     const std::map<std::string, std::string, std::less<>>& more,
                                     std::int64_t now) const {
  auto claims = lifecycle_claims(user);
  for (const auto& [name, value] : more) claims.emplace(name, value);
  if (!amr.empty()) claims.emplace(std::string(kAmrClaim), std::string(amr));
  if (!sid.empty()) claims.emplace(std::string(kRefreshFamilyClaim), std::string(sid));
  // Not given (a sign-in): the user authenticated now.
  claims.emplace(std::string(kAuthTimeClaim), std::to_string(now));
  // An OpenID client's token (`more` names its audience) is of its own kind.
  return tokens_.issue(more.contains("aud") ? kClientAccessKind : kAccessTokenType, user.id, user.username, now,
                       claims);
}

std::string Core::issue_service_token(const OidcClient& client, std::string_view scope, std::int64_t now) const {
  const std::string subject = std::string(kServiceSubjectPrefix) + client.id;
  return tokens_.issue(kAccessTokenType, subject, subject, now,
                       {{std::string(kClientIdClaim), client.id},
                        {"scope", std::string(scope)},
                        {std::string(kGenerationClaim), "0"},
                        {std::string(kAuthTimeClaim), std::to_string(now)}});
}

OAuthClient* Core::oauth_client(std::string_view provider) noexcept {
  const auto found = oauth_clients_.find(provider);
  return found == oauth_clients_.end() ? nullptr : found->second.get();
}

std::optional<std::string> Core::jwks() const {
  auto token_keys = tokens_.public_keys();
  if (!token_keys && !id_token_ring_) return std::nullopt;
  return jwk_set({std::move(token_keys), id_token_ring_ ? id_token_ring_->keys(KeyRing::Check::always, 0) : nullptr});
}

Result<Principal> Core::check(std::string_view authorization, std::optional<Capability> required) const {
  return guard_.check(authorization, required, unix_now());
}

Result<std::optional<Principal>> Core::check_request(std::string_view method, std::string_view path,
                                                     std::string_view authorization, std::string_view auth_cookie,
                                                     AccessPoint at) const {
  const auto requirement = settings_.access_rules.decide(method, path, at);
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
