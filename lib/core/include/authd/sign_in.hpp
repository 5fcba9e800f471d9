// Signing a user in: the one use case behind POST /signin, POST /signin/mfa,
// POST /signin/passkey/finish (with_method "webauthn") and GET /oauth, for any program that links
// libauthd (no HTTP here: cookies, headers and bodies are the caller's).
//
//   authd::SignIn sign_in(*core);
//   auto outcome = sign_in.with_password({"alice", "secret"}, {.address = "192.0.2.7"}, authd::unix_now());
//   if (!outcome) { /* outcome.error(): invalid_login, throttled, unavailable, email_not_verified, ... */ }
//   else if (auto* due = std::get_if<authd::SecondFactorDue>(&*outcome)) {
//     // due->mfa_token, due->methods; then sign_in.with_second_factor(due->mfa_token, {.code = "123456"}, ...)
//   } else {
//     const auto& done = std::get<authd::SignedIn>(*outcome);  // done.session.access_token, ...
//   }
//
// Each way checks the throttle, verifies the factor, asks for the second
// factor of a user who has one, writes the audit lines, reports the outcome
// (authd counts it for /metrics) and issues the session: an access token and,
// with refresh_token_ttl, a refresh family.
//
// Devices (OWASP "device cookies"): every sign-in gives the client a device
// token naming the user (authd: cookie `authd_device`). Presented again, it
// spares that client the lock-out of the username (throttle.hpp); missing
// or naming someone else, the sign-in is from a new device and the
// account's verified address is told (notify_new_device, mail template
// new_device: time, IP address, and the browser as a summary from a fixed
// list, authd/device_notice.hpp, never the User-Agent's text). A right
// password (or provider sign-in) from a new device whose second factor is
// still due is told at once (template sign_in_pending, once per account,
// address and browser an hour). A provider's redirect back is cross-site, so
// the SameSite=Strict cookie never comes with it: the caller passes the one
// the browser had at the start of the sign-in (authd: in the state cookie).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "authd/accounts.hpp"
#include "authd/authorization.hpp"
#include "authd/directory.hpp"
#include "authd/error.hpp"
#include "authd/events.hpp"
#include "authd/json.hpp"
#include "authd/refresh.hpp"
#include "authd/user.hpp"

namespace authd {

class Core;
namespace mail {
class Templates;
}

// What the use case needs to know of the client: for the throttle, the
// audit log and the device (OWASP "device cookies").
struct SignInClient {
  std::string address{};       // the client's address (REMOTE_ADDR)
  std::string request_id{};    // for the audit lines ("" = none)
  std::string device_token{};  // the device token the client presented ("" = none)
  std::string user_agent{};    // summarised in a new-device notice ("" = unknown browser)
};

// A second factor given for a pending sign-in: a typed code (TOTP,
// recovery), or the answer of the method named `method` (a passkey
// assertion for "webauthn": the WebAuthn credential as JSON; the methods
// that take answers: second_factor_methods.hpp, verify_answer).
struct SecondFactorProof {
  std::string code{};
  std::string method{};  // "" = `code`
  std::optional<Json> answer{};
};

// An access token and, with refresh_token_ttl, the refresh family it names (`sid`).
struct IssuedSession {
  std::string access_token;
  std::optional<Started> refresh;
};

struct SignedIn {
  User user;
  std::string amr;  // how the user authenticated: "" (password or provider alone), "pwd otp", "hwk mfa", ...
  IssuedSession session;
  std::int64_t issued_at = 0;  // the clock the session was issued by (its cookies' Max-Age count from it)
  // A new device token for the client (its device cookie), living device_ttl;
  // "" when this way of signing in gives none.
  std::string device_token;
  std::chrono::seconds device_ttl{0};
};

// The first factor was right and the user has a second one: finish with
// with_second_factor(mfa_token, ...) using one of `methods` ("totp", "recovery", "webauthn").
struct SecondFactorDue {
  std::string mfa_token;
  std::vector<std::string> methods;
};

using SignInOutcome = std::variant<SignedIn, SecondFactorDue>;

class SignIn {
 public:
  // `templates`: the mail templates of notices; nullptr sends none (Core
  // builds the one its program uses: Core::sign_in). What a
  // sign-in tells its program besides the outcome (a password sign-in's
  // outcome, warnings, a queued notice) goes to the core's events observer
  // (Core::open, authd/events.hpp).
  explicit SignIn(Core& core, const mail::Templates* templates = nullptr);

  // Username and password. Errors: invalid_login (one error for a wrong
  // password and an unknown user; throttled past the thresholds), throttled
  // (Retry-After), unavailable (a throttle that cannot count: fail closed;
  // no directory server answered for a directory user's sign-in),
  // email_not_verified (require_verified_email). With directory users on
  // (directory_urls), the password of a name that is not a local account's
  // (directory_name_clash) is checked by the directory: this call then
  // waits on the network, so a server runs it off its event loops.
  Result<SignInOutcome> with_password(const BasicCredentials& credentials, const SignInClient& client,
                                      std::int64_t now);
  // The second step of a sign-in. Errors: mfa_failed (unknown, spent or
  // expired token, wrong code or assertion), throttled, invalid_input.
  Result<SignInOutcome> with_second_factor(std::string_view mfa_token, const SecondFactorProof& proof,
                                           const SignInClient& client, std::int64_t now);
  // A sign-in by the answer of a method that signs in alone (a
  // password-less "webauthn" passkey assertion, passkey_signin): the method
  // names the user. Errors: not_configured, mfa_failed, email_not_verified.
  Result<SignInOutcome> with_method(std::string_view method, const Json& answer, const SignInClient& client,
                                    std::int64_t now);
  // An identity a provider vouched for (OAuthClient::complete): the linked
  // local account, created or updated. With mfa_for_oauth a second factor is
  // asked. Errors: as Accounts::sign_in_external, email_not_verified.
  Result<SignInOutcome> with_provider(const ExternalIdentity& identity, const SignInClient& client, std::int64_t now);

  // After a first factor proved otherwise (a password reset, `first` = "pwd"):
  // the challenge when `user` has an active second factor, else nullopt.
  Result<std::optional<SecondFactorDue>> second_factor_due(const User& user, std::string_view first,
                                                           const SignInClient& client, std::int64_t now);
  // A new session for `user` (also after sign-up or a password change).
  IssuedSession issue(const User& user, std::string_view amr, std::int64_t now);
  // A new device token for `user` (also after sign-up: the browser that
  // made the account is the owner's), and how long it lives.
  std::string new_device_token(const User& user, std::int64_t now) const;
  std::chrono::seconds device_ttl() const noexcept;

 private:
  // The account `credentials` prove: a local password, or the directory's
  // (before_bind: DirectoryClient::authenticate's).
  Result<User> check_password(const BasicCredentials& credentials, PasswordRefusal* refusal,
                              const SignInClient& client, std::int64_t now,
                              const DirectoryClient::BeforeBind& before_bind);
  Result<void> refuse_unverified(const User& user, const SignInClient& client);
  Result<std::string> verify_second_factor(const User& user, const SecondFactorProof& proof, std::int64_t now);
  SignedIn signed_in(User user, std::string amr, std::int64_t now);
  // The same with a device token, after telling the user of a new device
  // when the client's `device` (known_device) is "".
  SignedIn signed_in_on_device(User user, std::string amr, std::string_view device, const SignInClient& client,
                               std::int64_t now);
  std::string known_device(std::string_view device_token, std::string_view username, std::int64_t now) const;
  // `kind`: new_device (signed in) or sign_in_pending (second factor due).
  void tell_new_device(const User& user, const SignInClient& client, std::int64_t now,
                       std::string_view kind = "new_device");
  void audit(const SignInClient& client, std::string event, std::string username, std::string outcome,
             std::string reason = {}) const;

  Core& core_;
  const mail::Templates* templates_;
  Events& events_;
};

}  // namespace authd
