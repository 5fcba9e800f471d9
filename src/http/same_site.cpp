#include "http/same_site.hpp"

#include <string>

namespace authd::http {
namespace {

bool is_safe_method(std::string_view method) { return method == "GET" || method == "HEAD" || method == "OPTIONS"; }

// "https://host:port" -> "host:port"; "" when it is not http(s).
std::string_view origin_authority(std::string_view origin) {
  for (std::string_view scheme : {"https://", "http://"}) {
    if (origin.starts_with(scheme)) {
      origin.remove_prefix(scheme.size());
      if (origin.find('/') != std::string_view::npos) return {};
      return origin;
    }
  }
  return {};
}

}  // namespace

Result<void> check_same_site(const Request& request) {
  if (is_safe_method(request.method)) return {};
  if (request.param("HTTP_SEC_FETCH_SITE") == "cross-site") {
    return fail(Errc::cross_site, "cross-site request refused (Sec-Fetch-Site)");
  }
  const auto origin = request.param("HTTP_ORIGIN");
  if (origin.empty()) return {};
  const auto host = request.param("HTTP_HOST");
  const auto authority = origin_authority(origin);
  // Case-insensitive host comparison is not needed: browsers send both lower-case.
  if (authority.empty() || host.empty() || authority != host) {
    return fail(Errc::cross_site, "cross-site request refused (Origin does not match Host)");
  }
  return {};
}

}  // namespace authd::http
