// The CSRF defence of cookie-authenticated requests. The `auth` cookie is
// SameSite=Lax, which already keeps it off cross-site POST/PUT in current
// browsers; this check does not rely on that. A state-changing request
// (anything but GET, HEAD, OPTIONS) is refused when the browser says it is
// cross-site (Sec-Fetch-Site: cross-site) or its Origin is not this host.
// Requests without either header (curl, old browsers) pass: no browser
// omits both on a cross-site fetch/form POST today.
#pragma once

#include "authd/error.hpp"
#include "http/request.hpp"

namespace authd::http {

// Error: cross_site.
Result<void> check_same_site(const Request& request);

}  // namespace authd::http
