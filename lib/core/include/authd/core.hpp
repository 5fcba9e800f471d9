// The one composition root of the auth core. Built once from its settings,
// it owns every service — the store, the token service, the password hasher,
// accounts, the sign-in throttle, records, the guard and the OAuth clients —
// by value or unique_ptr. authd, authctl and any other server that links the
// library build it the same way:
//
//   authd::CoreSettings settings;                 // defaults
//   authd::settings::Loader loader;
//   authd::CoreSettingsTables tables(settings, loader);
//   loader.load(file, optional, env);             // validates everything, once
//   auto core = authd::Core::open(settings);      // opens the store, loads the key
//
// (Core::open(settings, events) with an observer of its side effects,
// authd/events.hpp: the mail sender, the log and metrics subscribe there)
//
// or, reading authd's own configuration exactly as authd does:
//
//   auto core = authd::Core::from_environment();
//   auto who = (*core)->check(authorization_header, authd::Capability::delete_);
//   if (!who) { auto e = authd::http::to_http(who.error()); /* status, headers, body */ }
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "authd/access_rules.hpp"
#include "authd/accounts.hpp"
#include "authd/audit.hpp"
#include "authd/authorization_codes.hpp"
#include "authd/pushed_requests.hpp"
#include "authd/device_authorizations.hpp"
#include "authd/backchannel_logout.hpp"
#include "authd/client_assertions.hpp"
#include "authd/email_verification.hpp"
#include "authd/error.hpp"
#include "authd/events.hpp"
#include "authd/guard.hpp"
#include "authd/invitations.hpp"
#include "authd/mail.hpp"
#include "authd/directory.hpp"
#include "authd/mfa.hpp"
#include "authd/oauth.hpp"
#include "authd/oauth_config.hpp"
#include "authd/oidc_clients.hpp"
#include "authd/oidc_consents.hpp"
#include "authd/oidc_settings.hpp"
#include "authd/passkeys.hpp"
#include "authd/password.hpp"
#include "authd/password_reset.hpp"
#include "authd/records.hpp"
#include "authd/refresh.hpp"
#include "authd/revocation.hpp"
#include "authd/settings.hpp"
#include "authd/sign_in.hpp"
#include "authd/signing_key.hpp"
#include "authd/store.hpp"
#include "authd/store_backends.hpp"
#include "authd/throttle.hpp"
#include "authd/token.hpp"
#include "authd/user_admin.hpp"

namespace authd {

// Every setting of the core, each part declared by its own module.
struct CoreSettings {
  StoreSettings store;
  KeySettings key;
  TokenPolicy token;
  RefreshPolicy refresh;
  Argon2Params argon2;
  CredentialPolicy credentials;
  ThrottlePolicy throttle;
  OAuthSettings oauth;
  AccessRules access_rules;
  AuditSettings audit;
  MfaSettings mfa;
  MailSettings mail;
  OidcSettings oidc;
  InvitationSettings invitations;
  DirectorySettings directory;
};

// The signing key file: signing_key_file, else <state_dir>/signing.key.
std::filesystem::path signing_key_path(const CoreSettings& settings);

// The public-key token keys (token_algorithm EdDSA/ES256): <state_dir>/keys.
std::filesystem::path key_ring_path(const CoreSettings& settings);
// Where those keys live: in key_ring_path with store = lmdb (one machine),
// in `store`'s entries with a shared backend such as postgresql (every node
// of the database; StoreBackend::shared).
std::shared_ptr<KeyStorage> key_storage(const CoreSettings& settings, Store& store);
// Where the ID-token keys of the OpenID provider live: <state_dir>/id-token-keys
// with store = lmdb, the store's "id_token_signing_*" entries with postgresql.
std::shared_ptr<KeyStorage> id_token_key_storage(const CoreSettings& settings, Store& store);
// The key algorithm of a public-key token_algorithm (nullopt for HS256).
std::optional<crypto::KeyAlgorithm> key_algorithm(TokenAlgorithm algorithm);

// Adds every module's table for `settings` to `loader` (and the checks that
// span modules). Keep it alive until loader.load() has returned.
class CoreSettingsTables {
 public:
  CoreSettingsTables(CoreSettings& settings, settings::Loader& loader);

 private:
  OAuthProviderSettings oauth_providers_;
};

class Core {
 public:
  // Opens the store and loads (or creates) the signing key. `events` hears
  // of the side effects of every service Core builds (authd/events.hpp); it
  // must outlive the Core. The mail templates are the built-in ones until
  // load_mail_templates(). Errors: config, io.
  static Result<std::unique_ptr<Core>> open(CoreSettings settings, Events& events = no_events());
  // The same over `running`'s store when `settings` name the same database
  // (same_database): a reload builds the next Core while the running one
  // still serves, and LMDB must not be opened twice in one process. It
  // tells `running`'s events observer. The store's other settings (map_size_mb, sync_writes, database_pool_size...)
  // then stay as they were until the next start.
  static Result<std::unique_ptr<Core>> open(CoreSettings settings, const Core& running);
  // Whether the two settings name the same store: backend, state directory
  // and database URL.
  static bool same_database(const StoreSettings& a, const StoreSettings& b);

  // Reads the settings as authd does: $AUTHD_CONFIG or `default_config`
  // (optional), then AUTHD_<NAME> variables; settings of the authd program
  // itself (workers, ...) in that file are skipped. Errors: config, io.
  static Result<std::unique_ptr<Core>> from_environment(const std::filesystem::path& default_config = {});

  Core(const Core&) = delete;
  Core& operator=(const Core&) = delete;

  // The bearer guard: token, re-authentication, optional capability.
  Result<Principal> check(std::string_view authorization, std::optional<Capability> required) const;

  // For a request to another application: the access rules decide what the
  // method + path need. The Authorization header is used when present, else
  // the `auth` cookie's token. A public path gives nullopt (no principal).
  // `at`: which default applies to paths no rule matches (access_rules.hpp).
  Result<std::optional<Principal>> check_request(std::string_view method, std::string_view path,
                                                 std::string_view authorization, std::string_view auth_cookie,
                                                 AccessPoint at = AccessPoint::authorizer) const;

  // A new access token for `user`, carrying its token generation (`gen`)
  // and, after a second factor, `amr` (space-separated methods, e.g. "pwd otp"),
  // and `sid`: the refresh family it belongs to ("" for none; sign-out ends it).
  std::string issue_access_token(const User& user, std::string_view amr = {}, std::string_view sid = {}) const;
  // The same with `more` claims (an OpenID client's: aud, client_id, scope,
  // which make it a kClientAccessKind token whose only audience is the
  // client; auth_time when the user authenticated earlier, else it is `now`), issued
  // at `now` (default: the clock's; a sign-in passes the time its refresh
  // family started, so that the token's auth_time is the family's).
  std::string issue_access_token(const User& user, std::string_view amr, std::string_view sid,
                                 const std::map<std::string, std::string, std::less<>>& more) const;
  std::string issue_access_token(const User& user, std::string_view amr, std::string_view sid,
                                 const std::map<std::string, std::string, std::less<>>& more,
                                 std::int64_t now) const;

  // A service client's own access token (the client_credentials grant): a
  // session token (aud token_audience) whose sub and name are
  // "client:<id>", with client_id and the granted `scope` (capability names).
  std::string issue_service_token(const OidcClient& client, std::string_view scope, std::int64_t now) const;

  const CoreSettings& settings() const noexcept { return settings_; }
  Store& store() noexcept { return *store_; }
  const TokenService& tokens() const noexcept { return tokens_; }
  const PasswordHasher& hasher() const noexcept { return hasher_; }
  Accounts& accounts() noexcept { return accounts_; }
  SigninThrottle& throttle() noexcept { return throttle_; }
  Records& records() noexcept { return records_; }
  const Guard& guard() const noexcept { return guard_; }
  // The audit log (lib/audit): core.audit().record({.event = "...", ...}).
  const AuditLog& audit() const noexcept { return *audit_; }
  AuditLog& audit() noexcept { return *audit_; }
  TokenRevocation& revocation() noexcept { return revocation_; }
  RefreshTokens& refresh() noexcept { return refresh_; }
  // Second factors (lib/mfa): TOTP, recovery codes, passkeys, mfa_token.
  SecondFactors& mfa() noexcept { return mfa_; }
  // The passkey ceremonies (WebAuthn): registration, removal, assertions.
  Passkeys& passkeys() noexcept { return passkeys_; }
  // Operator and admin changes of accounts, audited (authctl, /admin/users).
  UserAdmin& user_admin() noexcept { return user_admin_; }
  // Every way of signing in (authd/sign_in.hpp), its notices mailed with
  // mail_templates().
  SignIn& sign_in() noexcept { return sign_in_; }
  // Password reset by mail, email verification and invitations: the
  // links mailed with mail_templates().
  PasswordReset& password_reset() noexcept { return password_reset_; }
  EmailVerification& email_verification() noexcept { return email_verification_; }
  Invitations& invitations() noexcept { return invitations_; }
  // The templates every mail of the services above (and the notices of
  // sign-in and account changes) is written with.
  const mail::Templates& mail_templates() const noexcept { return mail_templates_; }
  // Replaces the built-in templates with the operator's (`mail_templates`
  // directory, mail::Templates::load); the services above mail with them
  // from then on. Called by a program that mails, once, before any request
  // is served (authd at start and in every reload's new Core, authctl
  // invite), so that a broken directory stops only what would mail with it;
  // on error the templates stay as they were. Error: config, io.
  Result<void> load_mail_templates();
  // The observer given to open(): what the services tell the program.
  Events& events() const noexcept { return events_; }
  // The applications signing in through authd (authd as OpenID provider).
  OidcClients& oidc_clients() noexcept { return oidc_clients_; }
  // private_key_jwt: the clients' signed assertions, their keys, the jti replay cache.
  ClientAssertions& client_assertions() noexcept { return client_assertions_; }
  // What users allowed those applications, and the authorization codes
  // /authorize issues and /token redeems.
  OidcConsents& oidc_consents() noexcept { return oidc_consents_; }
  AuthorizationCodes& authorization_codes() noexcept { return authorization_codes_; }
  // The authorization requests clients pushed to /par (RFC 9126).
  PushedRequests& pushed_requests() noexcept { return pushed_requests_; }
  // The device authorization grant's codes (RFC 8628).
  DeviceAuthorizations& device_authorizations() noexcept { return device_authorizations_; }
  // Back-channel logout: what queues a logout token for each relying party
  // when sessions end (the hook of refresh() and revocation()).
  BackchannelLogout& backchannel_logout() noexcept { return backchannel_logout_; }
  // The ID-token signing keys (oidc_provider = true), else nullptr.
  KeyRing* id_token_keys() const noexcept { return id_token_ring_.get(); }
  // The JWK set: the token keys (token_algorithm EdDSA/ES256) and the
  // ID-token keys (oidc_provider). nullopt when there is neither.
  std::optional<std::string> jwks() const;
  // Directory users (docs/directory.md): the directory client and the
  // guard's cache of their state; enabled() when directory_urls is set.
  DirectoryUsers& directory() noexcept { return *directory_; }
  // The client of a configured provider, or nullptr.
  OAuthClient* oauth_client(std::string_view provider) noexcept;
  bool oauth_configured() const noexcept { return !oauth_clients_.empty(); }

 private:
  Core(CoreSettings settings, std::shared_ptr<Store> store, TokenService tokens, std::unique_ptr<AuditLog> audit,
       std::shared_ptr<KeyRing> id_token_ring, mail::Templates templates, Events& events);
  static Result<std::unique_ptr<Core>> open(CoreSettings settings, std::shared_ptr<Store> store, Events& events);

  CoreSettings settings_;
  std::shared_ptr<Store> store_;  // shared with the Core a reload replaces (open(settings, running))
  TokenService tokens_;
  PasswordHasher hasher_;
  Accounts accounts_;
  SigninThrottle throttle_;
  Records records_;
  std::unique_ptr<DirectoryUsers> directory_;  // before guard_, which holds a pointer to it
  Guard guard_;
  TokenRevocation revocation_;
  RefreshTokens refresh_;
  SecondFactors mfa_;
  OidcClients oidc_clients_;
  ClientAssertions client_assertions_;
  OidcConsents oidc_consents_;
  AuthorizationCodes authorization_codes_;
  PushedRequests pushed_requests_;
  DeviceAuthorizations device_authorizations_;
  BackchannelLogout backchannel_logout_;
  std::map<std::string, std::unique_ptr<OAuthClient>, std::less<>> oauth_clients_;
  std::unique_ptr<AuditLog> audit_;
  std::shared_ptr<KeyRing> id_token_ring_;
  Passkeys passkeys_;
  UserAdmin user_admin_;
  Events& events_;
  mail::Templates mail_templates_;  // the services below hold a reference: replaced in place
  PasswordReset password_reset_;
  EmailVerification email_verification_;
  Invitations invitations_;
  SignIn sign_in_;  // last: it reads events_ and mail_templates_
};

}  // namespace authd
