#include "http/error_response.hpp"

#include "http/error_mapping.hpp"
#include "http/request_id.hpp"
#include "program/log.hpp"

namespace authd::http {

Response error_response(const Error& error) {
  switch (error.code) {
    case Errc::storage_full: log::error("storage full: " + error.message); break;
    case Errc::upstream_failed:
    case Errc::upstream_timeout: log::warn("identity provider: " + error.message); break;
    case Errc::config:
    case Errc::io:
    case Errc::internal: log::error(std::string(to_string(error.code)) + ": " + error.message); break;
    default: break;
  }
  ErrorAnswer mapped = to_http(error);
  Response response;
  response.status = mapped.status;
  response.header("Content-Type", "application/json");
  for (auto& [name, value] : mapped.headers) response.header(std::move(name), std::move(value));
  response.body = std::move(mapped.body);
  return response;
}

Response unrouted_error_response(const Error& error) {
  auto response = error_response(error);
  response.header("X-Request-Id", new_request_id());
  return response;
}

}  // namespace authd::http
