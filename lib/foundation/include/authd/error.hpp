// Errors are values: every fallible call in the core returns Result<T>.
//
// An Error is a kind (what went wrong, in the core's own terms) plus typed
// data a caller may need: the offending input field, how long to wait, which
// methods a path takes. The core knows nothing of HTTP: the FastCGI program
// turns an Error into status, headers and body in exactly one place
// (src/http/error_mapping.cpp).
#pragma once

#include <cstdint>
#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace authd {

enum class Errc {
  invalid_input,          // malformed or unacceptable input; `field` names it when one is at fault (message safe to show)
  invalid_login,          // password sign-in failed, for whatever reason (never says which)
  no_credentials,         // no bearer credentials were presented
  invalid_token,          // a bearer token was presented and is not acceptable
  malformed_credentials,  // malformed Authorization header, or two credentials at once
  not_permitted,          // authenticated, but the role lacks the capability
  cross_site,             // a state change (or a cookie-authenticated request) from another site (CSRF defence)
  not_found,              // the addressed record, user or route does not exist
  wrong_method,           // the path exists, the method does not; `allowed` lists the methods
  conflict,               // a unique key is taken, or the stored state changed under us
  too_large,              // input over a configured size limit
  unsupported_type,       // a request body in a content type the route does not take (JSON routes: application/json only)
  too_slow,               // the client did not deliver the request within the deadline
  storage_full,           // the store refuses writes (LMDB map full); reads still work
  throttled,              // a rate limit was hit; `retry_after` says when to try again; message names the limit (safe to show)
  unavailable,            // overloaded or a dependency is down right now; `retry_after` when known
  provider_refused,       // third-party sign-in refused (state mismatch, provider said no); message safe to show
  not_configured,         // the feature (e.g. third-party sign-in) is not set up
  upstream_failed,        // the identity provider failed or answered wrongly; message safe to show
  upstream_timeout,       // the identity provider did not answer in time
  config,                 // configuration is invalid (start-up only)
  io,                     // file-system failure (start-up, key file)
  internal,               // anything else: logged, never shown in detail
  mfa_challenge,          // the password was right, a second factor is due: `challenge` (mfa_token) and `allowed` (methods)
  mfa_required,           // the role needs a token showing a second factor (amr); message safe to show
  mfa_failed,             // a wrong, reused or expired second-factor code or mfa_token; message safe to show
  email_not_verified,     // sign-in refused: require_verified_email and the account's email is not verified yet
  signup_closed,          // signup_mode = invite: no new account without an invitation; message safe to show
};

struct Error {
  Errc code = Errc::internal;
  std::string message;                      // for logs, and for the client where the kind says "safe to show"
  std::string field;                        // invalid_input: the input field at fault ("" when none)
  std::optional<std::int64_t> retry_after;  // throttled / unavailable: whole seconds to wait (>= 1)
  std::vector<std::string> allowed;         // wrong_method: the methods the path accepts; mfa_challenge: the factors
  std::string challenge;                    // mfa_challenge: the mfa_token
  std::string username;                     // not_permitted / mfa_required: whose valid token was refused (audit)

  Error() = default;
  Error(Errc kind, std::string text) : code(kind), message(std::move(text)) {}

  // The typed cases, named.
  static Error invalid_field(std::string name, std::string text) {
    Error e(Errc::invalid_input, std::move(text));
    e.field = std::move(name);
    return e;
  }
  static Error retry_later(Errc kind, std::int64_t seconds, std::string text) {
    Error e(kind, std::move(text));
    e.retry_after = seconds < 1 ? 1 : seconds;
    return e;
  }
  static Error second_factor_due(std::string mfa_token, std::vector<std::string> factors) {
    Error e(Errc::mfa_challenge, "a second factor is required");
    e.challenge = std::move(mfa_token);
    e.allowed = std::move(factors);
    return e;
  }
  static Error methods(std::vector<std::string> accepted) {
    Error e(Errc::wrong_method, "method not allowed");
    e.allowed = std::move(accepted);
    return e;
  }
};

template <class T>
using Result = std::expected<T, Error>;

// Shorthand for `return std::unexpected(Error{...})`.
inline std::unexpected<Error> fail(Errc code, std::string message) {
  return std::unexpected(Error(code, std::move(message)));
}
inline std::unexpected<Error> fail(Error error) { return std::unexpected(std::move(error)); }

// invalid_input naming the field at fault: fail_field("email", "email must be ...").
inline std::unexpected<Error> fail_field(std::string field, std::string message) {
  return std::unexpected(Error::invalid_field(std::move(field), std::move(message)));
}

std::string_view to_string(Errc code) noexcept;

}  // namespace authd
