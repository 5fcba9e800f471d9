#include "fcgi/http_request.hpp"

#include <errno.h>  // program_invocation_short_name (GNU)

#include <memory>

namespace authd::fcgi {

http::Request to_http_request(Request&& fcgi) {
  auto params = std::make_shared<const Params>(std::move(fcgi.params));
  http::Request request = http::request_from_params(
      [params](const char* name) -> std::string_view {
        const std::string_view wanted(name);
        for (const auto& [key, value] : *params) {
          if (key == wanted) return value;
        }
        return {};
      },
      program_invocation_short_name);
  request.body = std::move(fcgi.body);
  return request;
}

}  // namespace authd::fcgi
