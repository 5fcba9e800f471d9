// Sign-in through a third-party identity provider (GET /oauth).
//
// This group's rows of the route table (the router, src/api/router.cpp, joins
// every group's) and the declarations of their handlers. A new route here is
// one row, its handler, and its operation in docs/openapi.yaml.
#pragma once

#include <array>

#include "api/route.hpp"

namespace authd::handlers {

// oauth.cpp
Handler oauth;

inline constexpr std::array oauth_routes{
    Route{"GET", "/oauth", oauth, Access::open, std::nullopt, Lane::upstream},
};

}  // namespace authd::handlers
