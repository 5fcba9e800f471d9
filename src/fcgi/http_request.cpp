#include "fcgi/http_request.hpp"

#include <memory>

namespace authd::fcgi {

http::Request to_http_request(Request&& fcgi) {
  auto params = std::make_shared<const Params>(std::move(fcgi.params));
  http::Request request;
  request.param = [params](const char* name) -> std::string_view {
    const std::string_view wanted(name);
    for (const auto& [key, value] : *params) {
      if (key == wanted) return value;
    }
    return {};
  };
  request.method = std::string(request.param("REQUEST_METHOD"));
  request.path = http::route_path(request.param("SCRIPT_NAME"), request.param("PATH_INFO"));
  request.query = std::string(request.param("QUERY_STRING"));
  request.https = request.param("HTTPS") == "on";
  request.remote_addr = std::string(request.param("REMOTE_ADDR"));
  request.body = std::move(fcgi.body);
  return request;
}

}  // namespace authd::fcgi
