#include "authd/error.hpp"

namespace authd {

std::string_view to_string(Errc code) noexcept {
  switch (code) {
    case Errc::invalid_input: return "invalid_input";
    case Errc::invalid_login: return "invalid_login";
    case Errc::no_credentials: return "no_credentials";
    case Errc::invalid_token: return "invalid_token";
    case Errc::malformed_credentials: return "malformed_credentials";
    case Errc::not_permitted: return "not_permitted";
    case Errc::cross_site: return "cross_site";
    case Errc::not_found: return "not_found";
    case Errc::wrong_method: return "wrong_method";
    case Errc::conflict: return "conflict";
    case Errc::too_large: return "too_large";
    case Errc::unsupported_type: return "unsupported_type";
    case Errc::too_slow: return "too_slow";
    case Errc::storage_full: return "storage_full";
    case Errc::throttled: return "throttled";
    case Errc::unavailable: return "unavailable";
    case Errc::provider_refused: return "provider_refused";
    case Errc::not_configured: return "not_configured";
    case Errc::upstream_failed: return "upstream_failed";
    case Errc::upstream_timeout: return "upstream_timeout";
    case Errc::config: return "config";
    case Errc::io: return "io";
    case Errc::internal: return "internal";
    case Errc::mfa_challenge: return "mfa_challenge";
    case Errc::mfa_required: return "mfa_required";
    case Errc::email_not_verified: return "email_not_verified";
    case Errc::mfa_failed: return "mfa_failed";
    case Errc::signup_closed: return "signup_closed";
  }
  return "unknown";
}

}  // namespace authd
