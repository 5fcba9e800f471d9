// A request as the handlers see it: no libfcgi types here.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace authd::http {

struct Request {
  std::string method;       // REQUEST_METHOD, upper case
  std::string path;         // SCRIPT_NAME + PATH_INFO, one trailing '/' removed
  std::string query;        // QUERY_STRING, still URL-encoded
  std::string body;
  bool https = false;       // HTTPS=on from the web server
  std::string remote_addr;
  // CGI/FastCGI parameter lookup ("HTTP_AUTHORIZATION", ...); "" when absent.
  std::function<std::string_view(const char*)> param;

  std::string_view authorization() const { return param("HTTP_AUTHORIZATION"); }
};

// Joins SCRIPT_NAME and PATH_INFO into the route path ("/records/abc"),
// whatever way the web server split them; strips one trailing slash.
std::string route_path(std::string_view script_name, std::string_view path_info);

}  // namespace authd::http
