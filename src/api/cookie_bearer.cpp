#include "api/cookie_bearer.hpp"

#include "http/cross_site.hpp"
#include "http/query.hpp"

namespace authd {

Result<std::string> bearer_from_cookie(const http::Request& request) {
  const auto cookie = http::cookie_value(request.param("HTTP_COOKIE"), "auth");
  if (cookie.empty()) return std::string();
  if (auto same = http::refuse_cross_site_change(request); !same) return std::unexpected(same.error());
  return "Bearer " + std::string(cookie);
}

}  // namespace authd
