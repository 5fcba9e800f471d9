// Second factors (issue 19): TOTP with recovery codes, passkeys (see
// webauthn.hpp), the short-lived `mfa_token` between the password and the
// second step of a sign-in, and the per-role policy.
//
// State lives in the store's entries, so it works on every backend:
//   "mfa"       key = user _id: one JSON object with the user's factors, a member
//               per registered method (second_factor_methods.hpp), built in:
//               {"totp":{"secret","active","last_step"},"recovery":[sha256 hex...],
//                "passkeys":[...]}. Keyed by _id, so a deleted and re-created
//               username never inherits factors (Accounts::remove deletes it too).
//   "mfa_token" key = SHA-256 hex of the token: {"user","username","first","attempts"},
//               expiring after mfa_token_ttl; deleted when used.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "authd/error.hpp"
#include "authd/json.hpp"
#include "authd/roles.hpp"
#include "authd/second_factor_methods.hpp"
#include "authd/settings.hpp"
#include "authd/store.hpp"
#include "authd/user.hpp"

namespace authd {

inline constexpr std::string_view kMfaNamespace = "mfa";
inline constexpr std::string_view kMfaTokenNamespace = "mfa_token";
// Passkey credential id (base64url) -> "<user _id>\n<username>", for password-less sign-in.
inline constexpr std::string_view kPasskeyNamespace = "passkey";
// The token claim (RFC 8176) naming how the user authenticated; the token
// service writes it as a JSON array, TokenClaims::extra holds it space-separated.
inline constexpr std::string_view kAmrClaim = "amr";
inline constexpr int kRecoveryCodeCount = 10;
// Wrong codes one mfa_token takes before it is spent (the throttle counts too).
inline constexpr int kMfaTokenAttempts = 5;

struct MfaSettings {
  std::string required_roles_text;  // mfa_required_roles, e.g. "admin editor"
  std::vector<Role> required_roles; // parsed from it after loading
  bool for_oauth = false;           // mfa_for_oauth
  std::chrono::seconds token_ttl{300};
  std::string issuer = "authd";     // the otpauth:// issuer shown in authenticator apps
  bool passkey_signin = false;      // passkeys as a password-less first factor
  std::string rp_id;                // webauthn_rp_id; "" = passkeys off
  std::string origins_text;         // webauthn_origins, space-separated
  std::vector<std::string> origins; // parsed
  std::string rp_name = "authd";
  bool require_user_verification = false;
  std::chrono::seconds challenge_ttl{300};
};

// mfa_required_roles, mfa_for_oauth, mfa_token_ttl, mfa_issuer, passkey_signin,
// webauthn_rp_id, webauthn_origins, webauthn_rp_name, webauthn_user_verification,
// webauthn_challenge_ttl.
std::vector<settings::Setting> mfa_settings(MfaSettings& settings);
// Parses the list settings; Error config on an unknown role.
Result<void> finish_mfa_settings(MfaSettings& settings);

// The amr values of the first factors a sign-in proves itself (RFC 8176):
// a password, a provider's identity. The second factors' are their methods'
// (second_factor_methods.hpp).
inline constexpr std::string_view kPasswordAmr = "pwd";
inline constexpr std::string_view kProviderAmr = "fed";

// Whether a token's amr shows two factors: a registered method's `amr`
// ("otp", "hwk") together with a first factor ("pwd", "fed") or a method's
// `multi_factor_amr` (a passkey with user verification signs in as "hwk mfa").
bool amr_has_second_factor(std::string_view amr);

struct TotpEnrolment {
  std::string secret;       // base32
  std::string otpauth_uri;  // otpauth://totp/<issuer>:<user>?secret=...&issuer=...
};

// What the user's factor state holds, as the registered second-factor
// methods (second_factor_methods.hpp) read it.
struct FactorStatus {
  // The methods the sign-in may use, in registration order: "totp", "webauthn", "recovery".
  std::vector<std::string> usable;
  bool second_step = false;  // a primary method is usable: a sign-in needs a second step
  // Every method's members of GET /me/mfa: {"totp","totp_pending","passkeys":[{"id","name","created"}],
  // "recovery_codes"} for the built-in ones.
  Json shown = Json::object();
  bool any() const noexcept { return second_step; }
  const std::vector<std::string>& methods() const noexcept { return usable; }
};

// A pending second step of a sign-in.
struct MfaPending {
  std::string user_id;
  std::string username;
  std::string first;  // amr of the first factor: "pwd" or "fed"
};

class SecondFactors {
 public:
  SecondFactors(Store& store, const MfaSettings& settings) : store_(store), settings_(settings) {}

  Result<FactorStatus> status(const User& user) const;

  // A new (unconfirmed) TOTP secret, replacing an unconfirmed one. Error:
  // conflict when a confirmed one exists (remove it first).
  Result<TotpEnrolment> begin_totp(const User& user);
  // Activates the pending secret when `code` matches; returns the ten
  // recovery codes (stored hashed, shown once). Errors: invalid_input naming
  // "code" (wrong code), conflict (nothing pending).
  Result<std::vector<std::string>> confirm_totp(const User& user, std::string_view code, std::int64_t now);
  // Removes the TOTP factor (and the recovery codes when no factor is left).
  Result<void> remove_totp(const User& user);
  // Removes every factor of the user (authctl mfa reset).
  Result<void> reset(std::string_view user_id);
  // The same inside a transaction (Accounts::remove): the factor state and the passkey index.
  static Result<void> erase(StoreTxn& txn, std::string_view user_id);
  // A factor state brought in whole, as stored, for the new account
  // `user_id` (authctl import; an export carries it as "second_factors"):
  // whatever is stored under that id goes first (erase), then each method
  // writes what it keeps outside the state (adopt), then the state. Errors:
  // invalid_input (not a JSON object), conflict (a passkey of it is another
  // account's).
  static Result<void> adopt(StoreTxn& txn, std::string_view user_id, std::string_view username, const Json& state);

  // Asks each method that takes typed codes, in order (TOTP: six digits,
  // step ±1, each step once; a recovery code, each once). Returns the amr
  // of the method that matched ("otp"). Error: mfa_failed.
  Result<std::string> verify_code(const User& user, std::string_view code, std::int64_t now);
  // Asks the method `method` to check `answer` (second_factor_methods.hpp,
  // verify_answer: a passkey assertion), for `user_id`'s second step or,
  // without it, as a sign-in of its own. Errors: not_configured (no such
  // method takes answers), as verify_answer.
  Result<FactorProof> verify_answer(std::string_view method, const Json& answer,
                                    std::optional<std::string_view> user_id, const TokenService& tokens,
                                    std::int64_t now);

  // The mfa_token of a sign-in whose first factor (`first`) succeeded.
  Result<std::string> start_sign_in(const User& user, std::string_view first, std::int64_t now);
  // The pending sign-in of `token`, without spending it. Error: mfa_failed.
  Result<MfaPending> pending(std::string_view token, std::int64_t now) const;
  // Spends the token (a successful second step).
  Result<void> finish_sign_in(std::string_view token);
  // Counts a wrong second step; the token is spent after kMfaTokenAttempts.
  Result<void> failed_attempt(std::string_view token);

  // Ten new recovery codes, their hashes put into `state` (replacing any).
  static std::vector<std::string> new_recovery_codes(Json& state);
  // The raw factor state (for passkeys.cpp), and its write-back.
  static Result<Json> load(StoreTxn& txn, std::string_view user_id);
  // Deletes the entry when no primary method holds anything in it (the
  // recovery codes go with the last primary factor).
  static Result<void> save(StoreTxn& txn, std::string_view user_id, const Json& state);

  const MfaSettings& settings() const noexcept { return settings_; }
  Store& store() noexcept { return store_; }

 private:
  Store& store_;
  const MfaSettings& settings_;
};

}  // namespace authd
