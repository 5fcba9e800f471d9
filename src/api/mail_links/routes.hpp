// The routes of the mailed links: a forgotten password (POST /password/forgot,
// POST /password/reset) and a verified address (GET|POST /email/verify, POST
// /email/verify/resend, PUT /me/email).
//
// This group's rows of the route table (the router, src/api/router.cpp, joins
// every group's) and the declarations of their handlers. A new route here is
// one row, its handler, and its operation in docs/openapi.yaml.
#pragma once

#include <array>

#include "api/route.hpp"

namespace authd::handlers {

// password_reset.cpp
Handler password_forgot;
Handler password_reset;
// email_verify.cpp
Handler email_verify_link;
Handler email_verify;
Handler email_verify_resend;
Handler change_email;

inline constexpr std::array mail_links_routes{
    // forgot waits out a fixed answer time: off the direct lane.
    Route{"POST", "/password/forgot", password_forgot, Access::open, std::nullopt, Lane::upstream, Body::json},
    Route{"POST", "/password/reset", password_reset, Access::open, std::nullopt, Lane::password, Body::json},
    Route{"GET", "/email/verify", email_verify_link, Access::open, std::nullopt, Lane::write},
    Route{"POST", "/email/verify", email_verify, Access::open, std::nullopt, Lane::write, Body::json},
    // resend waits out a fixed answer time: off the direct lane.
    Route{"POST", "/email/verify/resend", email_verify_resend, Access::open, std::nullopt, Lane::upstream, Body::json},
    Route{"PUT", "/me/email", change_email, Access::session, std::nullopt, Lane::password, Body::json},
};

}  // namespace authd::handlers
