#include "http/base_path.hpp"

#include <string>

#include "http/error_response.hpp"
#include "api/router.hpp"

namespace authd {

bool below_base_path(std::string_view path, std::string_view base, std::string& rest) {
  if (!path.starts_with(base)) return false;
  const auto below = path.substr(base.size());
  if (!below.empty() && below.front() != '/') return false;
  rest = below.empty() ? std::string("/") : std::string(below);
  return true;
}

Prepared prepare_mounted(App& app, http::Request&& request) {
  const std::string& base = app.server.base_path;
  if (base.empty() || request.param("FCGI_ROLE") == "AUTHORIZER") return prepare(app, std::move(request));
  if (request.base_path.empty()) {
    std::string rest;
    if (!below_base_path(request.path, base, rest)) {
      Error outside(Errc::not_found, "no route for " + request.path + " (outside base_path " + base + ")");
      Prepared refused;
      refused.response = http::error_response(outside);
      return refused;
    }
    request.path = std::move(rest);
  }
  request.base_path = base;
  return prepare(app, std::move(request));
}

}  // namespace authd
