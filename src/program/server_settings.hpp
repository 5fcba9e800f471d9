// Settings of the FastCGI program itself (threads, lanes, serving limits,
// cookies, logging): they belong to src/, the core knows nothing of them.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "authd/return_to.hpp"
#include "authd/settings.hpp"
#include "fcgi/limits.hpp"
#include "http/address_list.hpp"

namespace authd {

enum class CookieSecure { automatic, always, never };

struct ServerSettings {
  unsigned event_loops = 0;         // FastCGI event loops; 0 = one per core
  unsigned workers = 0;             // threads for store-bound requests (PostgreSQL); 0 = 2 x cores
  unsigned hash_workers = 0;        // concurrent password hashes; 0 = cores
  unsigned upstream_workers = 4;    // concurrent calls to identity providers
  std::size_t queue_limit = 128;    // requests waiting for either lane; beyond: 503
  // Requests and connections: read timeout, max_body_bytes, connection
  // count, idle time, unsent output, parameters, input dropped after an early
  // answer (fcgi/limits.hpp: the settings bind to its fields).
  fcgi::Limits limits;
  std::size_t max_json_depth = 16;
  CookieSecure cookie_secure = CookieSecure::automatic;
  std::string log_level = "info";
  std::string base_path;            // URL prefix authd is mounted under ("" = the site root); see http/base_path.hpp
  PortalSettings portal;            // portal_return_origins, portal_default_return
  http::AddressList metrics_allow = *http::AddressList::parse("127.0.0.1/8 ::1");    // who may GET /metrics
  http::AddressList trusted_proxies = *http::AddressList::parse("127.0.0.0/8 ::1");  // see http/forwarded.hpp
  std::string front_secret;         // required on a TCP listener; see http/front_secret.hpp
};

std::vector<settings::Setting> server_settings(ServerSettings& settings);

// A URL path prefix: "" (the site root) or "/a/b" with no empty, "." or ".."
// segment and nothing a URL path cannot hold unencoded; one trailing '/' is
// dropped ("/auth/" means "/auth", "/" means the root). Error: config.
Result<std::string> parse_base_path(std::string_view text);

}  // namespace authd
