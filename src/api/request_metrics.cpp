#include "api/request_metrics.hpp"

#include <string_view>

#include "serving/metrics.hpp"

namespace authd {

void record_request(const RouteMatch& match, int status, std::chrono::steady_clock::time_point started) {
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - started;
  const std::string_view route = match.route       ? match.route->pattern
                                 : match.authorizer ? std::string_view("authorizer")
                                                    : std::string_view("unmatched");
  metrics::request_done(route, status, took.count());
}

}  // namespace authd
