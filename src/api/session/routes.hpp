// The session routes: sign-up, sign-in, sign-out, the refresh token, the
// signed-in user's own account (GET /me, PUT /me/password).
//
// This group's rows of the route table (the router, src/api/router.cpp, joins
// every group's) and the declarations of their handlers. A new route here is
// one row, its handler, and its operation in docs/openapi.yaml.
#pragma once

#include <array>

#include "api/route.hpp"

namespace authd::handlers {

// signup.cpp
Handler signup;
// signin.cpp
Handler signin;
// refresh.cpp
Handler token_refresh;
// session.cpp
Handler signout;
Handler signout_all;
Handler me;
Handler change_password;

inline constexpr std::array session_routes{
    Route{"POST", "/signup", signup, Access::open, std::nullopt, Lane::password, Body::json},
    Route{"POST", "/signin", signin, Access::open, std::nullopt, Lane::password},
    Route{"POST", "/token/refresh", token_refresh, Access::open, std::nullopt, Lane::write, Body::json},
    Route{"POST", "/signout", signout, Access::enrol, std::nullopt, Lane::write},
    Route{"POST", "/signout/all", signout_all, Access::enrol, std::nullopt, Lane::write},
    Route{"GET", "/me", me, Access::enrol, std::nullopt},
    Route{"PUT", "/me/password", change_password, Access::session, std::nullopt, Lane::password, Body::json},
};

}  // namespace authd::handlers
