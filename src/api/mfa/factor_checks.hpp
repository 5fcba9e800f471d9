// What the second-factor group gives the other groups: the challenge after
// a first factor, and the step-up and session renewal of a factor change.
#pragma once

#include <string_view>

#include "api/route.hpp"
#include "authd/json.hpp"

namespace authd::handlers {

// After a first factor (`first`: "pwd"): the mfa_challenge error
// (401 MFA Required + mfa_token) when `user` has an active factor, else ok.
Result<void> ask_second_factor(App& app, const http::Request& request, const User& user, std::string_view first);
// Changing second factors (factor_change.cpp). Once `context`'s user has an
// active factor, a change needs a token whose amr shows a second factor or
// body member "second_factor" (a current TOTP or recovery code, spent).
// Errors: mfa_required (403), mfa_failed (wrong code), throttled.
Result<void> allow_factor_change(App& app, const http::Request& request, const RouteContext& context, const Json& body);
// After a factor was added or removed: ends every token and refresh family of
// the user and gives this session a new token (cookie `auth`, header
// `token`, a new refresh cookie when refresh tokens are on) with its amr.
Result<http::Response> end_other_sessions(App& app, const http::Request& request, const RouteContext& context,
                                          http::Response response);

}  // namespace authd::handlers
