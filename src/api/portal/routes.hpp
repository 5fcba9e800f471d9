// The /auth/ routes of the front servers and the sign-in portal (www/login.html):
// the access check, the provider buttons, the way back.
//
// This group's rows of the route table (the router, src/api/router.cpp, joins
// every group's) and the declarations of their handlers. A new route here is
// one row, its handler, and its operation in docs/openapi.yaml.
#pragma once

#include <array>

#include "api/route.hpp"

namespace authd::handlers {

// access.cpp
Handler auth_check;
// The FastCGI Authorizer role (FCGI_ROLE=AUTHORIZER), whatever the path: not a row.
Handler authorizer;
// providers.cpp
Handler auth_providers;
// return_to.cpp
Handler return_to;
Handler portal_redirect;

inline constexpr std::array portal_routes{
    Route{"*", "/auth/check", auth_check, Access::open, std::nullopt, Lane::read},
    Route{"GET", "/auth/providers", auth_providers, Access::open, std::nullopt},
    Route{"GET", "/auth/return", return_to, Access::open, std::nullopt},
    Route{"GET", "/auth/portal", portal_redirect, Access::open, std::nullopt},
};

}  // namespace authd::handlers
