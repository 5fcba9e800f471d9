// Who may call a route, from its row alone: the checks every request passes
// before its handler (cross-site changes, the body's type) and the guard of
// the routes that need credentials (Access::bearer, admin, session, enrol).
#pragma once

#include "api/route.hpp"

namespace authd {

// Whether a route's method changes state (anything but GET and "*", which
// only the access check /auth/check uses: it judges another request).
bool changes_state(const Route& route) noexcept;

// The checks every request passes before its guard and handler, from the
// route's row alone (login CSRF, issue 23 class 1):
//  - a route that changes state (and so every route that sets the `auth`
//    or `refresh` cookie: /signup, /signin, /signin/mfa, /signin/passkey/*,
//    /token/refresh, ...) refuses cross-site requests (http/cross_site.hpp),
//    unless they carry a bearer token in the Authorization header (which no
//    browser sends by itself, nor for another site's page without a CORS
//    preflight authd never grants);
//  - a non-empty body of a Body::json route must be application/json
//    (unsupported_type, 415), before anything parses it.
// The router runs admit_site first and admit_body just before the handler
// (after the guard on guarded routes: the spec's token check comes first).
// Errors: cross_site, unsupported_type.
Result<void> admit(const Route& route, const http::Request& request);
Result<void> admit_site(const Route& route, const http::Request& request);
Result<void> admit_body(const Route& route, const http::Request& request);

// The principal of a guarded route (any access but open): its bearer token,
// or the `auth` cookie where the route takes one (api/cookie_bearer.hpp),
// checked by the guard for the route's capability (enrol: exempt from
// mfa_required_roles; admin: role admin). A token in the query string is
// refused outright (RFC 6750 §2.3: URIs end up in logs). A refusal of a valid
// token is audited. Errors: as the guard; malformed_credentials; not_permitted
// for another role than admin on an admin route.
Result<Principal> authenticate(App& app, const http::Request& request, const Route& route);

}  // namespace authd
