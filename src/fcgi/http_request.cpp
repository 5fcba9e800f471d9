#include "fcgi/http_request.hpp"

#include <errno.h>  // program_invocation_short_name (GNU)

#include <memory>

namespace authd::fcgi {

http::Request to_http_request(Request&& fcgi) {
  const auto find = [view = fcgi.params.get()](std::string_view name) -> std::string_view {
    return view->find(name).value_or(std::string_view());
  };
  http::Request request = http::request_from_params(find, find, program_invocation_short_name);
  request.param_source = std::move(fcgi.params);
  request.body = std::move(fcgi.body);
  return request;
}

}  // namespace authd::fcgi
