// What the router records of every answer for GET /metrics (serving/metrics.hpp).
#pragma once

#include <chrono>

#include "api/router.hpp"

namespace authd {

// Counts an answered request under its route's pattern ("authorizer" for the
// FastCGI Authorizer role, "unmatched" when no route took it), with its
// status and the time since `started`.
void record_request(const RouteMatch& match, int status, std::chrono::steady_clock::time_point started);

}  // namespace authd
