#include "authd/error.hpp"

namespace authd {

std::string_view to_string(Errc code) noexcept {
  switch (code) {
    case Errc::bad_request: return "bad_request";
    case Errc::invalid_login: return "invalid_login";
    case Errc::missing_token: return "missing_token";
    case Errc::invalid_token: return "invalid_token";
    case Errc::invalid_request: return "invalid_request";
    case Errc::forbidden: return "forbidden";
    case Errc::not_found: return "not_found";
    case Errc::method_not_allowed: return "method_not_allowed";
    case Errc::conflict: return "conflict";
    case Errc::payload_too_large: return "payload_too_large";
    case Errc::storage_full: return "storage_full";
    case Errc::too_many_requests: return "too_many_requests";
    case Errc::unavailable: return "unavailable";
    case Errc::access_denied: return "access_denied";
    case Errc::not_configured: return "not_configured";
    case Errc::bad_gateway: return "bad_gateway";
    case Errc::gateway_timeout: return "gateway_timeout";
    case Errc::config: return "config";
    case Errc::io: return "io";
    case Errc::internal: return "internal";
  }
  return "unknown";
}

}  // namespace authd
