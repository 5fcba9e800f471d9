// Where the sign-in portal may send a browser back to after sign-in (the
// `rd` / `return_to` parameter of /login). An open redirect is a phishing
// tool, so the check happens on the server (GET /auth/return), never in page
// script alone: a path on this site, or a URL whose origin is on the
// configured allow-list (portal_return_origins); anything else goes to the
// safe default (portal_default_return).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "authd/error.hpp"
#include "authd/settings.hpp"

namespace authd {

struct PortalSettings {
  std::vector<std::string> return_origins;  // normalised "scheme://host[:port]", see normalized_origin
  std::string default_return = "/account";  // where a refused or missing return address leads
};

// portal_return_origins, portal_default_return; a check that the default is
// itself an allowed address is added to `loader` by the caller.
std::vector<settings::Setting> portal_settings(PortalSettings& settings);

// Whether settings.default_return is an allowed address. Error: config.
Result<void> validate_portal_settings(const PortalSettings& settings);

// "HTTPS://App.Example.com:443/" -> "https://app.example.com". Only http and
// https, a host of letters, digits, '.', '-' (or a bracketed IPv6 address),
// an optional port 1-65535 (the scheme's default port is dropped), and no
// userinfo, path (a lone "/" is tolerated), query or fragment. nullopt
// otherwise.
std::optional<std::string> normalized_origin(std::string_view text);

// True when `address` (already percent-decoded once, as the query parser
// leaves it) may be sent to a browser as a Location:
//  - a path on this site: "/" followed by anything but a second "/";
//  - an absolute http(s) URL whose normalised origin is in `origins`.
// Refused whatever else: control characters, spaces, backslashes (browsers
// read "/\evil" as "//evil"), non-ASCII bytes, "//host", userinfo
// ("https://good@evil"), other schemes (javascript:, data:), relative paths,
// more than 2048 bytes.
bool return_address_allowed(std::string_view address, std::span<const std::string> origins);

// `requested` when return_address_allowed, else settings.default_return.
std::string choose_return_address(std::string_view requested, const PortalSettings& settings);

}  // namespace authd
