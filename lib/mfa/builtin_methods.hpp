// The built-in second-factor methods (authd/second_factor_methods.hpp),
// each defined beside its code; the registry (factor_registry.cpp) registers
// them first, in the order of builtin(). A new built-in method is its own
// file(s) and one line here (a program linking the library calls
// register_second_factor_method instead).
#pragma once

#include <vector>

#include "authd/second_factor_methods.hpp"

namespace authd::mfa_methods {

SecondFactorMethod totp_method();      // factors.cpp: "totp", state "totp":{"secret","active","last_step"}
SecondFactorMethod passkey_method();   // passkeys.cpp: "webauthn", state "passkeys":[...]
SecondFactorMethod recovery_method();  // factors.cpp: "recovery", state "recovery":[sha256 hex...]

// The registration order: what the sign-in lists and asks first.
inline std::vector<SecondFactorMethod> builtin() { return {totp_method(), passkey_method(), recovery_method()}; }

}  // namespace authd::mfa_methods
