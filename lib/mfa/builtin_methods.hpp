// The built-in second-factor methods (authd/second_factor_methods.hpp),
// each defined beside its code; the registry (factor_registry.cpp) registers
// them first, in this order.
#pragma once

#include "authd/second_factor_methods.hpp"

namespace authd::mfa_methods {

SecondFactorMethod totp_method();      // factors.cpp: "totp", state "totp":{"secret","active","last_step"}
SecondFactorMethod passkey_method();   // passkeys.cpp: "webauthn", state "passkeys":[...]
SecondFactorMethod recovery_method();  // factors.cpp: "recovery", state "recovery":[sha256 hex...]

}  // namespace authd::mfa_methods
