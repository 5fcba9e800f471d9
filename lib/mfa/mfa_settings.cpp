#include "authd/mfa.hpp"

namespace authd {
std::vector<settings::Setting> mfa_settings(MfaSettings& s) {
  return settings::grouped("Second factor", {
      settings::text("mfa_required_roles", s.required_roles_text,
                     "Roles (admin, editor, writer, user; separated by spaces or commas) whose tokens must show a "
                     "second factor (claim amr with otp or hwk), else 403 {\"error\":\"MFA Required\"}; until they "
                     "enrol, such users reach only /me, /me/mfa/* and /signout. Users enrol TOTP or passkeys "
                     "themselves (docs/second-factor.md); a user with an active factor gets 401 with an mfa_token "
                     "from /signin and finishes with POST /signin/mfa. Empty = no role must."),
      settings::boolean("mfa_for_oauth", s.for_oauth,
                        "Third-party sign-in (GET /oauth) also asks a user with an active factor for it (the "
                        "answer is then the same 401 as /signin's)."),
      settings::seconds("mfa_token_ttl", s.token_ttl, 30, 3600,
                        "Lifetime of the single-use mfa_token between the two sign-in steps, in seconds."),
      settings::text("mfa_issuer", s.issuer, "The issuer name authenticator apps show next to a TOTP account."),
      settings::boolean("passkey_signin", s.passkey_signin,
                        "Passkeys also sign in without a password (POST /signin/passkey/begin and finish); needs "
                        "webauthn_rp_id."),
      settings::text("webauthn_rp_id", s.rp_id,
                     "The WebAuthn relying-party id: the site's registrable domain, e.g. example.org. Empty = "
                     "passkeys off."),
      settings::text("webauthn_origins", s.origins_text,
                     "The exact origins of the pages that run WebAuthn ceremonies (e.g. https://example.org), "
                     "separated by spaces or commas; at least one when webauthn_rp_id is set."),
      settings::text("webauthn_rp_name", s.rp_name, "The relying-party name authenticators show."),
      settings::boolean("webauthn_user_verification", s.require_user_verification,
                        "Require user verification (PIN, fingerprint) in passkey registration and second-factor "
                        "use; a password-less sign-in (passkey_signin) always requires it."),
      settings::seconds("webauthn_challenge_ttl", s.challenge_ttl, 10, 3600,
                        "Lifetime of a WebAuthn challenge, in seconds."),
  });
}

Result<void> finish_mfa_settings(MfaSettings& s) {
  s.required_roles.clear();
  for (const auto name : settings::list_items(s.required_roles_text)) {
    const auto role = parse_role(name);
    if (!role) {
      return fail(Errc::config,
                  "mfa_required_roles: '" + std::string(name) + "' is not a role (admin, editor, writer, user)");
    }
    s.required_roles.push_back(*role);
  }
  s.origins.clear();
  for (const auto origin : settings::list_items(s.origins_text)) s.origins.emplace_back(origin);
  if (!s.rp_id.empty() && s.origins.empty()) {
    return fail(Errc::config, "webauthn_origins must name at least one origin when webauthn_rp_id is set");
  }
  if (s.passkey_signin && s.rp_id.empty()) return fail(Errc::config, "passkey_signin needs webauthn_rp_id");
  return {};
}

}  // namespace authd
