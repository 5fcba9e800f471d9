// Which modules' settings make up the core, and the checks that span them.
#include "authd/core.hpp"

namespace authd {

CoreSettingsTables::CoreSettingsTables(CoreSettings& s, settings::Loader& loader) : oauth_providers_(s.oauth) {
  loader.add(store_settings(s.store));
  loader.add(key_settings(s.key));
  loader.add(token_settings(s.token));
  loader.add(refresh_settings(s.refresh));
  loader.add(password_settings(s.argon2));
  loader.add(credential_settings(s.credentials));
  loader.add(throttle_settings(s.throttle));
  loader.add(oauth_providers_);
  loader.add(oauth_settings(s.oauth));
  loader.add(access_rule_settings(s.access_rules));
  loader.add(audit_settings(s.audit));
  loader.add(mfa_settings(s.mfa));
  loader.add(mail_settings(s.mail));
  loader.add_check([&s] { return finish_mail_settings(s.mail); });
  loader.add(oidc_settings(s.oidc));
  loader.add(invitation_settings(s.invitations));
  loader.add(directory_settings(s.directory));
  loader.add_check([&s]() -> Result<void> {
    // A directory user's name is an authd username: the same length limit.
    s.directory.username_max_length = s.credentials.username_max_length;
    for (const auto& provider : s.oauth.providers) {
      if (provider.name == "directory") {
        return fail(Errc::config, "oauth provider name \"directory\" is taken by directory users' links");
      }
    }
    return finish_directory_settings(s.directory);
  });
  loader.add_check([&s]() -> Result<void> {
    if (s.store.lmdb.directory.empty()) return fail(Errc::config, "state_dir must not be empty");
    if (s.argon2.memory_kib < 8 * s.argon2.parallelism) {
      return fail(Errc::config, "argon2_memory_kib must be at least 8 x argon2_parallelism");
    }
    if (s.credentials.password_min_length > s.credentials.password_max_length) {
      return fail(Errc::config, "password_min_length exceeds password_max_length");
    }
    if (s.token.issuer.empty() || s.token.audience.empty()) {
      return fail(Errc::config, "token_issuer and token_audience must not be empty");
    }
    // Audiences of other token kinds (token.hpp): a session must never share one.
    if (s.token.audience.starts_with("authd:") || s.token.audience.starts_with("client_")) {
      return fail(Errc::config, "token_audience must not start with \"authd:\" or \"client_\" (the audiences of "
                                "authd's other tokens and of OpenID clients' tokens)");
    }
    return finish_mfa_settings(s.mfa);
  });
}

}  // namespace authd
