// Cross-site requests that would set cookies or change state (login CSRF):
// a plain HTML form or a text/plain fetch from another site must not sign a
// browser up or in.
//
//  - Sec-Fetch-Site, when the browser sends it, must be same-origin or none
//    (typed in, a bookmark); same-site, cross-site are refused;
//  - else Origin, when present, must be this site: the scheme (HTTPS=on) and
//    the Host header, or X-Forwarded-Host/-Proto from a trusted proxy; "null"
//    (sandboxed frames, file:) is refused;
//  - requests without either (curl, servers) are not browsers' and pass.
// The route table applies both to every route (api/access_policy.hpp, admit()).
#pragma once

#include "authd/error.hpp"
#include "http/request.hpp"

namespace authd::http {

// Error cross_site (403) when the request comes from another site.
Result<void> refuse_cross_site(const Request& request);

// The same for state changes only (any method but GET, HEAD, OPTIONS): for
// requests the `auth` cookie authenticates, which the browser attaches by
// itself whoever made the page.
Result<void> refuse_cross_site_change(const Request& request);

// Error unsupported_type (415) unless Content-Type is application/json (parameters
// allowed): forms (urlencoded, multipart) and text/plain, the content types a
// cross-site page may send without a CORS preflight, never reach the parser.
Result<void> require_json_body(const Request& request);

// Error unsupported_type (415) unless Content-Type is
// application/x-www-form-urlencoded: the OAuth endpoints' body (RFC 6749 §4.1.3).
// The route table refuses such posts from other sites (Sec-Fetch-Site,
// Origin); servers calling /token send neither and pass.
Result<void> require_form_body(const Request& request);

}  // namespace authd::http
