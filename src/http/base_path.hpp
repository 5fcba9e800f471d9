// authd below a URL prefix (shared hosting: the document root
// ~/public_html/auth serves https://example.com/auth/signup). The prefix
// comes from SCRIPT_NAME when the web server runs authd as a script (see
// http::route_path), or from the setting base_path (AUTHD_BASE_PATH) when a
// front end passes the whole path. Routes stay as the spec names them
// (/signup, /records/{id}); the prefix only shows in the URLs authd writes
// (Location of a new record, Path of the OAuth state cookie). The `auth`
// cookie keeps Path=/ as the spec says.
#pragma once

#include "program/app.hpp"
#include "http/request.hpp"
#include "serving/lane.hpp"

namespace authd {

// prepare() (api/router.hpp) for an authd mounted at app.server.base_path:
//  - the web server already named the prefix (request.base_path set by
//    route_path): the route is relative already; a configured base_path
//    replaces the prefix in the URLs authd writes;
//  - otherwise, with base_path set, the request path must start with it
//    (whole segments): it is removed before routing; any other path answers
//    404 `{"error":"Not Found"}`.
// Authorizer requests (FCGI_ROLE=AUTHORIZER) pass unchanged: their path
// belongs to another application.
Prepared prepare_mounted(App& app, http::Request&& request);

// True when `path` is `base` or lies below it ("/auth", "/auth/x"; not
// "/authx"); `rest` then receives the part below it ("/" for `base` itself).
bool below_base_path(std::string_view path, std::string_view base, std::string& rest);

}  // namespace authd
