// Errors are values: every fallible call in the core returns Result<T>.
// The FastCGI program maps Errc to an HTTP status in exactly one place.
#pragma once

#include <expected>
#include <string>
#include <string_view>

namespace authd {

enum class Errc {
  bad_request,        // malformed input; message names the field or the problem (safe to show)
  invalid_login,      // Basic sign-in failed, for whatever reason (never says which)
  missing_token,      // no bearer credentials were presented
  invalid_token,      // a bearer token was presented and is not acceptable
  invalid_request,    // malformed Authorization header, or two credentials at once
  forbidden,          // authenticated, but the role lacks the capability
  not_found,          // the addressed record or user does not exist
  method_not_allowed, // the path exists, the method does not; message = the allowed methods
  conflict,           // unique key already taken (e.g. username at sign-up)
  payload_too_large,  // request body over the configured limit
  storage_full,       // the LMDB map is full: writes refused, reads still work
  too_many_requests,  // sign-in throttled; message = seconds until the next attempt is accepted
  unavailable,        // overloaded right now (a work queue is full); try again shortly
  access_denied,      // third-party sign-in refused (state mismatch, provider said no); message safe to show
  not_configured,     // the feature (e.g. third-party sign-in) is not set up
  bad_gateway,        // the identity provider failed or answered wrongly; message safe to show
  gateway_timeout,    // the identity provider did not answer in time
  config,             // configuration is invalid (start-up only)
  io,                 // file-system failure (start-up, key file)
  internal,           // anything else: logged, answered with a generic 500
};

struct Error {
  Errc code;
  std::string message;  // for logs, and for the client where the code says "safe to show"
};

template <class T>
using Result = std::expected<T, Error>;

// Shorthand for `return std::unexpected(Error{...})`.
inline std::unexpected<Error> fail(Errc code, std::string message) {
  return std::unexpected(Error{code, std::move(message)});
}

std::string_view to_string(Errc code) noexcept;

}  // namespace authd
