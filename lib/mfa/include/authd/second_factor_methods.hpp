// Second-factor methods register by name (as lighttpd's
// http_auth_backend_set, and as the store backends: store_backends.hpp):
// SecondFactors (mfa.hpp) asks every registered method, in registration
// order, what the user's factor state holds, what GET /me/mfa shows of it and
// whether a typed code is one of its codes. Built in, in this order: "totp",
// "webauthn" (passkeys), "recovery". A program linking the library registers
// its own before serving.
//
// A method reads and writes its part of the user's factor state: the one
// JSON object in the store's namespace "mfa" (mfa.hpp), e.g. "totp":{...}.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "authd/error.hpp"
#include "authd/json.hpp"
#include "authd/store.hpp"

namespace authd {

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
  std::string amr;  // what a matched code adds to the token's amr claim (RFC 8176), e.g. "otp"
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

}  // namespace authd
