// Second-factor methods register by name (as lighttpd's
// http_auth_backend_set, and as the store backends: store_backends.hpp):
// SecondFactors (mfa.hpp) asks every registered method, in registration
// order, what the user's factor state holds, what GET /me/mfa shows of it and
// whether a typed code is one of its codes; SignIn (authd/sign_in.hpp) asks
// the method named by an answer (a passkey assertion) to check it; the amr
// and acr of tokens (amr_has_second_factor, acr_of) come from the methods'
// declarations. Built in, in this order: "totp", "webauthn" (passkeys),
// "recovery" (mfa/builtin_methods.hpp lists them). A program linking the
// library registers its own before serving.
//
// A method reads and writes its part of the user's factor state: the one
// JSON object in the store's namespace "mfa" (mfa.hpp), e.g. "totp":{...}.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "authd/error.hpp"
#include "authd/json.hpp"
#include "authd/store.hpp"

namespace authd {

struct MfaSettings;
class TokenService;

// What a method's answer check (verify_answer) may use besides the user's state.
struct FactorServices {
  Store& store;
  const MfaSettings& settings;
  const TokenService& tokens;
};

// What an accepted answer proved.
struct FactorProof {
  std::string user_id;   // whose factor answered (found by the method when signing in alone)
  std::string username;
  std::string amr;       // what the token's amr claim gets from it, space-separated: "hwk", "hwk mfa"
};

struct SecondFactorMethod {
  std::string name;  // as the sign-in's and GET /me/mfa's "methods" list it
  // A primary method makes a sign-in ask for a second step. A secondary one
  // (recovery codes) only stands in for a primary one: it never makes a
  // sign-in need a second step, and its state goes when no primary method
  // holds any (SecondFactors::save deletes the whole entry then).
  bool primary = true;
  // Whether `state` holds anything of the method, usable or not (an
  // unconfirmed TOTP secret counts).
  std::function<bool(const Json& state)> present;
  // Whether the method can be used at sign-in.
  std::function<bool(const Json& state)> usable;
  // Adds the method's members to the GET /me/mfa answer `shown` (an object).
  std::function<void(const Json& state, Json& shown)> describe;
  // For a method taking a typed code (empty otherwise): whether `code` is
  // one of its valid codes at `now`. On a match it updates `state` (a used
  // TOTP step, a spent recovery code), which the caller then saves in the
  // same write transaction. Compare in constant time. Errors: internal (corrupt state).
  std::function<Result<bool>(Json& state, std::string_view code, std::int64_t now)> verify_code;
  // For a method answered by a JSON document rather than a typed code (a
  // passkey assertion; POST /signin/mfa carries it as the member named as
  // the method, {"webauthn": credential}; empty otherwise): checks `answer`
  // for the second step of `user_id`, or, without `user_id`, as a sign-in of
  // its own (a password-less passkey sign-in). It writes what it changes
  // itself. Errors: mfa_failed (refused, malformed), not_configured (the
  // method is off, or cannot sign in alone), unavailable, internal.
  std::function<Result<FactorProof>(const FactorServices& services, const Json& answer,
                                    std::optional<std::string_view> user_id, std::int64_t now)>
      verify_answer;
  // The amr value (RFC 8176 §2) a proof of the method adds to the token: the
  // factor it shows, "otp" (TOTP, recovery codes) or "hwk" (passkeys).
  // amr_has_second_factor (mfa.hpp) counts it as the second factor.
  std::string amr;
  // The amr value a proof adds when it showed two factors at once (a
  // passkey whose authenticator verified its user: "mfa"); "" for none.
  // amr_has_second_factor counts it as the factor beside `amr`, as it does
  // a password ("pwd") or a provider ("fed").
  std::string multi_factor_amr;
  // The acr (OpenID Connect Core §2) of a token whose amr shows `amr`:
  // acr_of (id_token.hpp) takes the highest of the methods shown, "1" for none.
  std::string acr = "2";
  // How the audit log names a refused answer or code ("wrong or reused code",
  // "passkey assertion refused") and a sign-in of the method's own ("passkey").
  std::string refused_reason = "wrong or reused code";
  std::string audit_name;
  // Optional: deletes what the method keeps outside the state (the passkey
  // index), when every factor of the user goes (SecondFactors::erase).
  std::function<Result<void>(StoreTxn& txn, const Json& state)> forget;
  // Optional: writes what the method keeps outside the state (the passkey
  // index) for a state brought in whole for account `user_id` named
  // `username` (authctl import: SecondFactors::adopt). Error: conflict when
  // any of it belongs to another account already.
  std::function<Result<void>(StoreTxn& txn, const Json& state, std::string_view user_id, std::string_view username)>
      adopt;
};

// Adds `method`, replacing one of the same name (in its place in the order).
// An empty `present` is "never", an empty `usable` is `present`, an empty
// `describe` shows nothing.
void register_second_factor_method(SecondFactorMethod method);
// The method named `name`, or nullptr.
std::shared_ptr<const SecondFactorMethod> find_second_factor_method(std::string_view name);
// Every registered method in registration order, the built-in ones first.
// The pointers stay valid when a method is replaced later.
std::vector<std::shared_ptr<const SecondFactorMethod>> second_factor_methods();

// The acr of a token's `amr` (space-separated): the highest `acr` of a
// registered method whose `amr` it shows, "1" when it shows none (built in:
// "2" for otp and hwk).
std::string second_factor_acr(std::string_view amr);

}  // namespace authd
