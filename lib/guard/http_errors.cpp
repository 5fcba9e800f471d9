// The one mapping from Error to HTTP status, headers and JSON body.
#include "authd/authenticator.hpp"
#include "authd/json.hpp"

namespace authd {
namespace {

constexpr std::string_view kAccessDenied = "Access Denied";

std::string error_body(std::string_view title) {
  Json body = Json::object();
  body.set("error", Json::string(title));
  return body.dump();
}

std::string error_body(std::string_view title, std::string_view detail) {
  Json body = Json::object();
  body.set("error", Json::string(title)).set("detail", Json::string(detail));
  return body.dump();
}

// RFC 6750 §3: the challenge names the scheme, and the error once a token was sent.
HttpError access_denied(int status, std::string challenge) {
  return {status, {{"WWW-Authenticate", std::move(challenge)}}, error_body(kAccessDenied)};
}

}  // namespace

HttpError to_http(const Error& error) {
  switch (error.code) {
    case Errc::bad_request: return {400, {}, error_body(error.message)};
    case Errc::invalid_login: return {500, {}, error_body("Invalid Login")};
    case Errc::missing_token: return access_denied(401, "Bearer realm=\"authd\"");
    case Errc::invalid_token: return access_denied(401, "Bearer realm=\"authd\", error=\"invalid_token\"");
    case Errc::invalid_request: return access_denied(400, "Bearer realm=\"authd\", error=\"invalid_request\"");
    case Errc::forbidden: return access_denied(403, "Bearer realm=\"authd\", error=\"insufficient_scope\"");
    case Errc::not_found: return {404, {}, error_body("Not Found")};
    case Errc::method_not_allowed: return {405, {{"Allow", error.message}}, error_body("Method Not Allowed")};
    case Errc::conflict: return {409, {}, error_body(error.message)};
    case Errc::payload_too_large: return {413, {}, error_body("Payload Too Large")};
    case Errc::storage_full: return {507, {}, error_body("Insufficient Storage")};
    case Errc::too_many_requests:
      return {429, {{"Retry-After", error.message}},
              error_body("Too Many Requests", "too many failed sign-ins; retry in " + error.message + " s")};
    case Errc::unavailable: return {503, {{"Retry-After", "1"}}, error_body("Service Unavailable", error.message)};
    case Errc::access_denied: return {403, {}, error_body(kAccessDenied, error.message)};
    case Errc::not_configured: return {501, {}, error_body(error.message)};
    case Errc::bad_gateway: return {502, {}, error_body("Bad Gateway", error.message)};
    case Errc::gateway_timeout: return {504, {}, error_body("Gateway Timeout", error.message)};
    case Errc::config:
    case Errc::io:
    case Errc::internal:
      break;
  }
  return {500, {}, error_body("Internal Server Error")};
}

}  // namespace authd
