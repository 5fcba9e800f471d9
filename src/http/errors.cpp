#include "http/errors.hpp"

#include "log.hpp"

namespace authd::http {
namespace {

constexpr std::string_view kAccessDenied = "Access Denied";

// RFC 6750 §3: the challenge names the scheme, and the error once a token was sent.
Response access_denied(int status, std::string_view challenge) {
  return Response::error(status, kAccessDenied).header("WWW-Authenticate", std::string(challenge));
}

// {"error": title, "detail": why} for errors whose title is fixed but whose
// cause helps the caller (never a secret: messages of these kinds are written
// to be shown).
Response with_detail(int status, std::string_view title, std::string_view detail) {
  Json body = Json::object();
  body.set("error", Json::string(title)).set("detail", Json::string(detail));
  return Response::json(status, body);
}

}  // namespace

Response error_response(const Error& error) {
  switch (error.code) {
    case Errc::bad_request: return Response::error(400, error.message);
    case Errc::invalid_login: return Response::error(500, "Invalid Login");
    case Errc::missing_token: return access_denied(401, "Bearer realm=\"authd\"");
    case Errc::invalid_token: return access_denied(401, "Bearer realm=\"authd\", error=\"invalid_token\"");
    case Errc::invalid_request: return access_denied(400, "Bearer realm=\"authd\", error=\"invalid_request\"");
    case Errc::forbidden: return access_denied(403, "Bearer realm=\"authd\", error=\"insufficient_scope\"");
    case Errc::not_found: return Response::error(404, "Not Found");
    case Errc::method_not_allowed:
      return Response::error(405, "Method Not Allowed").header("Allow", error.message);
    case Errc::conflict: return Response::error(409, error.message);
    case Errc::payload_too_large: return Response::error(413, "Payload Too Large");
    case Errc::storage_full:
      log::error("storage full: " + error.message);
      return Response::error(507, "Insufficient Storage");
    case Errc::too_many_requests:
      return with_detail(429, "Too Many Requests", "too many failed sign-ins; retry in " + error.message + " s")
          .header("Retry-After", error.message);
    case Errc::unavailable:
      return with_detail(503, "Service Unavailable", error.message).header("Retry-After", "1");
    case Errc::access_denied: return with_detail(403, kAccessDenied, error.message);
    case Errc::not_configured: return Response::error(501, error.message);
    case Errc::bad_gateway:
      log::warn("identity provider: " + error.message);
      return with_detail(502, "Bad Gateway", error.message);
    case Errc::gateway_timeout:
      log::warn("identity provider: " + error.message);
      return with_detail(504, "Gateway Timeout", error.message);
    case Errc::config:
    case Errc::io:
    case Errc::internal:
      break;
  }
  log::error(std::string(to_string(error.code)) + ": " + error.message);
  return Response::error(500, "Internal Server Error");
}

}  // namespace authd::http
