#include "authd/mfa.hpp"

namespace authd {
namespace {

std::vector<std::string> words(std::string_view text) {
  std::vector<std::string> out;
  std::string word;
  for (char c : text) {
    if (c == ' ' || c == ',' || c == '\t') {
      if (!word.empty()) out.push_back(std::move(word));
      word.clear();
    } else {
      word += c;
    }
  }
  if (!word.empty()) out.push_back(std::move(word));
  return out;
}

}  // namespace

std::vector<settings::Setting> mfa_settings(MfaSettings& s) {
  return {
      settings::text("mfa_required_roles", s.required_roles_text,
                     "roles whose tokens must show a second factor (amr), e.g. \"admin editor\"; empty = none"),
      settings::boolean("mfa_for_oauth", s.for_oauth, "third-party sign-in (GET /oauth) also asks for the second factor"),
      settings::seconds("mfa_token_ttl", s.token_ttl, 30, 3600, "lifetime of the mfa_token between the two sign-in steps"),
      settings::text("mfa_issuer", s.issuer, "the issuer name authenticator apps show for TOTP"),
      settings::boolean("passkey_signin", s.passkey_signin, "passkeys may sign in without a password"),
      settings::text("webauthn_rp_id", s.rp_id, "WebAuthn relying-party id (the site's domain); empty = passkeys off"),
      settings::text("webauthn_origins", s.origins_text, "origins allowed in WebAuthn ceremonies, space-separated"),
      settings::text("webauthn_rp_name", s.rp_name, "relying-party name shown by the authenticator"),
      settings::boolean("webauthn_user_verification", s.require_user_verification,
                        "require user verification (PIN, biometrics) in registration and second-factor use (password-less sign-in always requires it)"),
      settings::seconds("webauthn_challenge_ttl", s.challenge_ttl, 10, 3600, "lifetime of a WebAuthn challenge"),
  };
}

Result<void> finish_mfa_settings(MfaSettings& s) {
  s.required_roles.clear();
  for (const auto& name : words(s.required_roles_text)) {
    const auto role = parse_role(name);
    if (!role) return fail(Errc::config, "mfa_required_roles: '" + name + "' is not a role (admin, editor, writer, user)");
    s.required_roles.push_back(*role);
  }
  s.origins = words(s.origins_text);
  if (!s.rp_id.empty() && s.origins.empty()) {
    return fail(Errc::config, "webauthn_origins must name at least one origin when webauthn_rp_id is set");
  }
  if (s.passkey_signin && s.rp_id.empty()) return fail(Errc::config, "passkey_signin needs webauthn_rp_id");
  return {};
}

}  // namespace authd
