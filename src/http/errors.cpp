#include "http/errors.hpp"

#include "authd/authenticator.hpp"
#include "log.hpp"

namespace authd::http {

Response error_response(const Error& error) {
  switch (error.code) {
    case Errc::storage_full: log::error("storage full: " + error.message); break;
    case Errc::bad_gateway:
    case Errc::gateway_timeout: log::warn("identity provider: " + error.message); break;
    case Errc::config:
    case Errc::io:
    case Errc::internal: log::error(std::string(to_string(error.code)) + ": " + error.message); break;
    default: break;
  }
  HttpError mapped = to_http(error);  // the mapping itself lives in lib/guard/http_errors.cpp
  Response response;
  response.status = mapped.status;
  response.header("Content-Type", "application/json");
  for (auto& [name, value] : mapped.headers) response.header(std::move(name), std::move(value));
  response.body = std::move(mapped.body);
  return response;
}

}  // namespace authd::http
