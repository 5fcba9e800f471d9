// A request as the handlers see it: no libfcgi types here.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "authd/error.hpp"

namespace authd::http {

// CGI/FastCGI parameter lookup ("HTTP_AUTHORIZATION", ...); "" when absent.
using ParamLookup = std::function<std::string_view(std::string_view)>;

struct Request {
  std::string method;       // REQUEST_METHOD, upper case
  std::string path;         // the route: see route_path
  std::string base_path;    // URL prefix authd is mounted under ("" at the site root): see route_path
  std::string query;        // QUERY_STRING, still URL-encoded
  std::string body;
  bool https = false;       // HTTPS=on from the web server
  std::string remote_addr;  // the client: REMOTE_ADDR, or through trusted proxies (http/forwarded.hpp)
  bool from_trusted_proxy = false;  // REMOTE_ADDR is in trusted_proxies: its forwarding headers count
  std::string request_id;   // X-Request-Id: set by prepare() (api/router.hpp), sent back, in every audit line
  ParamLookup param;
  // What `param` reads from, kept alive as long as the request (and its
  // copies): `param` itself then captures a plain pointer, small enough for
  // std::function to keep without an allocation of its own.
  std::shared_ptr<const void> param_source;

  std::string_view authorization() const { return param("HTTP_AUTHORIZATION"); }
};

// The route of a request ("/records/abc") and the prefix it was found under.
struct RoutePath {
  std::string path;
  std::string base_path;
};

// Usually SCRIPT_NAME and PATH_INFO joined, whatever way the web server
// split them (lighttpd, mod_proxy_fcgi), with no prefix. When SCRIPT_NAME
// names this program's own file and PATH_INFO is not empty (CGI, or mod_fcgid
// after a rewrite on shared hosting: SCRIPT_NAME=/auth/authd.fcgi,
// PATH_INFO=/signup), the route is PATH_INFO alone and SCRIPT_NAME's
// directory is the prefix ("/auth").
// `program_name` is the program's file name (argv[0] without directories).
// One trailing slash of the route is stripped.
RoutePath route_path(std::string_view script_name, std::string_view path_info, std::string_view program_name);

// Method, route, query, HTTPS, client address and `param` itself from the
// CGI/FastCGI parameters (the body is left to the caller).
Request request_from_params(ParamLookup param, std::string_view program_name);

// The same, reading those few through `find` (any callable from a name to
// its value, "" when absent: the FastCGI parameters' own lookup, called
// directly rather than through the std::function on every request).
template <class Find>
Request request_from_params(const Find& find, ParamLookup param, std::string_view program_name) {
  Request request;
  request.method = std::string(find("REQUEST_METHOD"));
  auto route = route_path(find("SCRIPT_NAME"), find("PATH_INFO"), program_name);
  request.path = std::move(route.path);
  request.base_path = std::move(route.base_path);
  request.query = std::string(find("QUERY_STRING"));
  request.https = find("HTTPS") == "on";
  request.remote_addr = std::string(find("REMOTE_ADDR"));
  request.param = std::move(param);
  return request;
}

// CONTENT_LENGTH: 0 when absent. Errors: invalid_input when it is not a
// number, too_large beyond `max_body`.
Result<std::size_t> content_length(const Request& request, std::size_t max_body);

}  // namespace authd::http
