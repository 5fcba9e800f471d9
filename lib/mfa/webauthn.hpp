// WebAuthn Level 2 verification (https://www.w3.org/TR/webauthn-2/ §7): the
// relying party's checks of a registration and of an assertion, free of any
// storage. Attestation formats: "none" and "packed" self-attestation (no
// x5c). Credential keys: ES256 (COSE EC2 P-256) and EdDSA (COSE OKP Ed25519).
// Every failure is Errc::mfa_failed with the reason in the message.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "authd/error.hpp"

namespace authd::webauthn {

struct Policy {
  std::string rp_id;                 // the relying-party id; rpIdHash = SHA-256(rp_id)
  std::vector<std::string> origins;  // clientDataJSON.origin must be one of them
  bool require_user_verification = false;
};

struct Credential {
  std::string id;          // credential id (raw bytes)
  std::string public_key;  // the COSE_Key as CBOR (raw bytes)
  std::uint32_t sign_count = 0;
};

struct Registration {
  Credential credential;
  std::string format;  // "none" or "packed"
  bool user_verified = false;
};

struct Assertion {
  std::uint32_t sign_count = 0;
  bool user_verified = false;
};

// §7.1 steps 5-24 for `challenge` (the raw bytes the server issued).
Result<Registration> verify_registration(const Policy& policy, std::string_view challenge,
                                         std::string_view client_data_json, std::string_view attestation_object);

// §7.2 steps 11-21 against the stored `credential`. The sign count must grow
// (unless the authenticator keeps none: stored and presented both 0).
Result<Assertion> verify_assertion(const Policy& policy, std::string_view challenge, const Credential& credential,
                                   std::string_view client_data_json, std::string_view authenticator_data,
                                   std::string_view signature);

// Flag bits of authenticatorData.
inline constexpr unsigned char kUserPresent = 0x01;
inline constexpr unsigned char kUserVerified = 0x04;
inline constexpr unsigned char kAttestedData = 0x40;
inline constexpr unsigned char kExtensionData = 0x80;

}  // namespace authd::webauthn
