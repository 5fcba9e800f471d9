// A decoded FastCGI request as the handlers see it (http::Request): the one
// place that knows which CGI parameters carry what.
#pragma once

#include "fcgi/request_parser.hpp"
#include "http/request.hpp"

namespace authd::fcgi {

// Method, path (SCRIPT_NAME + PATH_INFO), query, HTTPS, REMOTE_ADDR and the
// body; every parameter stays reachable through Request::param (the first
// one of a name wins, FCGI_ROLE included, as with libfcgi's FCGX_GetParam).
http::Request to_http_request(Request&& request);

}  // namespace authd::fcgi
