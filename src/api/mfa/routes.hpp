// Second factors (mfa.cpp: TOTP and the second sign-in step; passkeys.cpp:
// passkey registration, removal and password-less sign-in).
//
// This group's rows of the route table (the router, src/api/router.cpp, joins
// every group's) and the declarations of their handlers. A new route here is
// one row, its handler, and its operation in docs/openapi.yaml.
#pragma once

#include <array>

#include "api/route.hpp"

namespace authd::handlers {

// mfa.cpp
Handler signin_mfa;
Handler mfa_status;
Handler mfa_totp_begin;
Handler mfa_totp_remove;
Handler mfa_totp_confirm;
// passkeys.cpp
Handler passkey_register_begin;
Handler passkey_register_finish;
Handler passkey_remove;
Handler signin_mfa_webauthn_begin;
Handler passkey_signin_status;
Handler passkey_signin_begin;
Handler passkey_signin_finish;

inline constexpr std::array mfa_routes{
    Route{"POST", "/signin/mfa", signin_mfa, Access::open, std::nullopt, Lane::write, Body::json},
    Route{"GET", "/me/mfa", mfa_status, Access::enrol, std::nullopt},
    Route{"POST", "/me/mfa/totp", mfa_totp_begin, Access::enrol, std::nullopt, Lane::write, Body::json},
    Route{"DELETE", "/me/mfa/totp", mfa_totp_remove, Access::enrol, std::nullopt, Lane::write, Body::json},
    Route{"POST", "/me/mfa/totp/confirm", mfa_totp_confirm, Access::enrol, std::nullopt, Lane::write, Body::json},
    Route{"POST", "/me/mfa/webauthn/register/begin", passkey_register_begin, Access::enrol, std::nullopt, Lane::write, Body::json},
    Route{"POST", "/me/mfa/webauthn/register/finish", passkey_register_finish, Access::enrol, std::nullopt, Lane::write, Body::json},
    Route{"DELETE", "/me/mfa/webauthn/{id}", passkey_remove, Access::enrol, std::nullopt, Lane::write, Body::json},
    Route{"POST", "/signin/mfa/webauthn/begin", signin_mfa_webauthn_begin, Access::open, std::nullopt, Lane::write, Body::json},
    Route{"GET", "/signin/passkey", passkey_signin_status, Access::open, std::nullopt},
    Route{"POST", "/signin/passkey/begin", passkey_signin_begin, Access::open, std::nullopt, Lane::write, Body::json},
    Route{"POST", "/signin/passkey/finish", passkey_signin_finish, Access::open, std::nullopt, Lane::write, Body::json},
};

}  // namespace authd::handlers
