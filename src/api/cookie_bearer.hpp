// The `auth` cookie as a bearer token, for the routes a browser page calls
// (Access::session, enrol, admin) when the request has no Authorization header.
#pragma once

#include <string>

#include "authd/error.hpp"
#include "http/request.hpp"

namespace authd {

// "Bearer <cookie auth>", or "" when the request has no `auth` cookie. The
// browser sends the cookie by itself, whoever made the page: a state change
// on its strength must come from our own site (CSRF).
// Errors: those of http::refuse_cross_site_change.
Result<std::string> bearer_from_cookie(const http::Request& request);

}  // namespace authd
