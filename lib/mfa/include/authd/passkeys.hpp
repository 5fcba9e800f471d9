// Passkey ceremonies (WebAuthn) on the store: the options a browser passes
// to navigator.credentials.create()/get(), single-use challenges (signed
// tokens of the token service, expiring after webauthn_challenge_ttl and
// naming their ceremony and user; a used one is noted in entries
// "webauthn_challenge" until it expires, by the write that accepts it), the user's
// credentials inside its factor state (see mfa.hpp) and the credential-id
// index for password-less sign-in. Verification itself: webauthn.hpp.
//
// A credential as the browser sends it back (base64url strings):
//   {"id", "response": {"clientDataJSON", "attestationObject"}}             registration
//   {"id", "response": {"clientDataJSON", "authenticatorData", "signature"}} assertion
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "authd/error.hpp"
#include "authd/json.hpp"
#include "authd/mfa.hpp"
#include "authd/store.hpp"
#include "authd/token.hpp"
#include "authd/user.hpp"

namespace authd {

inline constexpr std::string_view kChallengeNamespace = "webauthn_challenge";

struct PasskeyRegistered {
  std::string id;                           // base64url credential id
  std::vector<std::string> recovery_codes;  // new ones when the user had none, else empty
};

struct PasskeyUsed {
  std::string user_id;
  std::string username;
  bool user_verified = false;
};

class Passkeys {
 public:
  Passkeys(Store& store, const MfaSettings& settings, const TokenService& tokens)
      : store_(store), settings_(settings), tokens_(tokens) {}

  // Error not_configured unless webauthn_rp_id is set.
  Result<void> enabled() const;

  // PublicKeyCredentialCreationOptions (as JSON, binary members base64url).
  Result<Json> begin_registration(const User& user, std::int64_t now);
  // Verifies and stores the credential. Errors: mfa_failed (verification,
  // unknown/used/expired challenge), invalid_input (shape), conflict (known credential).
  Result<PasskeyRegistered> finish_registration(const User& user, const Json& credential, std::string_view name,
                                                std::int64_t now);
  // Error not_found when the user has no such credential.
  Result<void> remove(const User& user, std::string_view credential_id);

  // PublicKeyCredentialRequestOptions: for `user` (second factor: its
  // credentials allowed, the challenge bound to it) or for anyone
  // (password-less sign-in with a discoverable credential). Writes nothing.
  Result<Json> begin_authentication(const std::optional<User>& user, std::int64_t now);
  // Verifies an assertion; with `user_id` it must be that user's credential
  // (user verification as webauthn_user_verification says), without it
  // (password-less sign-in) the user must have been verified, always.
  // The sign count is stored. Error: mfa_failed.
  Result<PasskeyUsed> finish_authentication(const Json& credential, std::optional<std::string_view> user_id,
                                            std::int64_t now);

 private:
  Store& store_;
  const MfaSettings& settings_;
  const TokenService& tokens_;
};

}  // namespace authd
