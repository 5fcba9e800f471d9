#include "http/error_mapping.hpp"

#include "authd/json.hpp"

namespace authd::http {
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
ErrorAnswer access_denied(int status, std::string challenge) {
  return {status, {{"WWW-Authenticate", std::move(challenge)}}, error_body(kAccessDenied)};
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) out += ", ";
    out += item;
  }
  return out;
}

std::string seconds(const Error& error) { return std::to_string(error.retry_after.value_or(1)); }

// Which limit answered 429: the limit's own words (error.hpp: safe to show).
std::string limit_hit(const Error& error) { return error.message.empty() ? "too many requests" : error.message; }

}  // namespace

ErrorAnswer to_http(const Error& error) {
  switch (error.code) {
    case Errc::invalid_input: return {400, {}, error_body(error.message)};
    case Errc::invalid_login: return {500, {}, error_body("Invalid Login")};
    case Errc::no_credentials: return access_denied(401, "Bearer realm=\"authd\"");
    case Errc::invalid_token: return access_denied(401, "Bearer realm=\"authd\", error=\"invalid_token\"");
    case Errc::malformed_credentials: return access_denied(400, "Bearer realm=\"authd\", error=\"invalid_request\"");
    case Errc::not_permitted: return access_denied(403, "Bearer realm=\"authd\", error=\"insufficient_scope\"");
    case Errc::cross_site: return {403, {}, error_body("Forbidden", error.message)};
    case Errc::not_found: return {404, {}, error_body("Not Found")};
    case Errc::wrong_method: return {405, {{"Allow", joined(error.allowed)}}, error_body("Method Not Allowed")};
    case Errc::conflict: return {409, {}, error_body(error.message)};
    case Errc::too_large: return {413, {}, error_body("Payload Too Large")};
    case Errc::unsupported_type: return {415, {}, error_body("Unsupported Media Type", error.message)};
    case Errc::too_slow: return {408, {{"Connection", "close"}}, error_body("Request Timeout")};
    case Errc::storage_full: return {507, {}, error_body("Insufficient Storage")};
    case Errc::throttled:
      return {429, {{"Retry-After", seconds(error)}},
              error_body("Too Many Requests", limit_hit(error) + "; retry in " + seconds(error) + " s")};
    case Errc::unavailable:
      return {503, {{"Retry-After", seconds(error)}}, error_body("Service Unavailable", error.message)};
    case Errc::provider_refused: return {403, {}, error_body(kAccessDenied, error.message)};
    case Errc::not_configured: return {501, {}, error_body(error.message)};
    case Errc::upstream_failed: return {502, {}, error_body("Bad Gateway", error.message)};
    case Errc::upstream_timeout: return {504, {}, error_body("Gateway Timeout", error.message)};
    case Errc::mfa_challenge: {
      // Not a failure of the client: the next step of its sign-in (POST /signin/mfa).
      Json body = Json::object();
      Json methods = Json::array();
      for (const auto& method : error.allowed) methods.append(Json::string(method));
      body.set("error", Json::string("MFA Required"))
          .set("mfa_token", Json::string(error.challenge))
          .set("methods", std::move(methods));
      return {401, {{"Cache-Control", "no-store"}}, body.dump()};
    }
    case Errc::mfa_required: return {403, {}, error_body("MFA Required", error.message)};
    case Errc::email_not_verified: return {403, {{"Cache-Control", "no-store"}}, error_body("Email Not Verified")};
    case Errc::signup_closed: return {403, {}, error_body("Sign-up Closed", error.message)};
    case Errc::mfa_failed: return {401, {{"Cache-Control", "no-store"}}, error_body("Invalid Second Factor", error.message)};
    case Errc::config:
    case Errc::io:
    case Errc::internal:
      break;
  }
  return {500, {}, error_body("Internal Server Error")};
}

}  // namespace authd::http
