// Settings of the FastCGI program itself (threads, lanes, request limits,
// cookies, logging): they belong to src/, the core knows nothing of them.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include "authd/return_to.hpp"
#include "authd/settings.hpp"
#include "http/address_list.hpp"

namespace authd {

enum class CookieSecure { automatic, always, never };

struct ServerSettings {
  unsigned event_loops = 0;         // FastCGI event loops; 0 = one per core
  unsigned workers = 0;             // threads for store-bound requests (PostgreSQL); 0 = 2 x cores
  unsigned hash_workers = 0;        // concurrent password hashes; 0 = cores
  unsigned upstream_workers = 4;    // concurrent calls to identity providers
  std::size_t queue_limit = 128;    // requests waiting for either lane; beyond: 503
  std::size_t max_body_bytes = 65536;
  std::size_t max_json_depth = 16;
  // A request must arrive whole within this time of its first byte (408 or
  // the connection dropped after it): slow or stalled clients hold no thread.
  std::chrono::milliseconds request_read_timeout{10000};
  // What one FastCGI connection may hold (event_loop.hpp): open connections
  // (0 = the open-file limit less 64, told to the web server as
  // FCGI_MAX_CONNS), idle time of a kept one (management records do not
  // count as use), unsent output before reading stops / the connection is
  // closed, parameters per request, and input dropped after an early answer.
  unsigned max_connections = 0;
  std::chrono::milliseconds idle_connection_timeout{std::chrono::minutes(5)};
  std::size_t output_pause_bytes = 256 * 1024;
  std::size_t output_limit_bytes = 16 << 20;
  std::size_t max_request_params = 1000;
  std::size_t early_answer_discard_bytes = 16 << 20;
  CookieSecure cookie_secure = CookieSecure::automatic;
  std::string log_level = "info";
  std::string base_path;            // URL prefix authd is mounted under ("" = the site root); see base_path.hpp
  PortalSettings portal;            // portal_return_origins, portal_default_return
  http::AddressList metrics_allow = *http::AddressList::parse("127.0.0.1/8 ::1");    // who may GET /metrics
  http::AddressList trusted_proxies = *http::AddressList::parse("127.0.0.0/8 ::1");  // see http/forwarded.hpp
  std::string front_secret;         // required on a TCP listener; see front_secret.hpp
};

std::vector<settings::Setting> server_settings(ServerSettings& settings);

// A URL path prefix: "" (the site root) or "/a/b" with no empty, "." or ".."
// segment and nothing a URL path cannot hold unencoded; one trailing '/' is
// dropped ("/auth/" means "/auth", "/" means the root). Error: config.
Result<std::string> parse_base_path(std::string_view text);

}  // namespace authd
