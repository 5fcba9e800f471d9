#include "server_settings.hpp"

#include "http/forwarded.hpp"

namespace authd {

std::vector<settings::Setting> server_settings(ServerSettings& s) {
  auto log_level = settings::text("log_level", s.log_level, "error, warn, info or debug");
  log_level.kind = settings::Kind::choice;
  log_level.choices = {"error", "warn", "info", "debug"};
  log_level.assign = [&s](std::string_view v) -> Result<void> {
    if (v != "error" && v != "warn" && v != "info" && v != "debug") {
      return fail(Errc::config, "expected error, warn, info or debug");
    }
    s.log_level = std::string(v);
    return {};
  };
  settings::Setting base_path = settings::text("base_path", s.base_path,
                                                "URL prefix authd is mounted under when the web server passes the whole path");
  base_path.assign = [&s](std::string_view v) -> Result<void> {
    auto path = parse_base_path(v);
    if (!path) return std::unexpected(path.error());
    s.base_path = std::move(*path);
    return {};
  };
  auto front_secret = settings::secret(
      "front_secret", s.front_secret,
      "on a TCP listener, the FastCGI parameter AUTHD_FRONT_SECRET the web server must send (16+ characters)");
  front_secret.assign = [&s](std::string_view v) -> Result<void> {
    if (v.size() < 16) return fail(Errc::config, "expected at least 16 characters (e.g. openssl rand -hex 32)");
    s.front_secret = std::string(v);
    return {};
  };
  return {
      settings::integer("event_loops", s.event_loops, 0, 256,
                        "event loops, each accepting connections and answering the requests that cannot block "
                        "(the guard, token checks, records on LMDB, JWKS) where they arrive; 0 = one per CPU core"),
      settings::integer("workers", s.workers, 0, 256,
                        "threads answering the requests that read or write a store reached over the network "
                        "(store = postgresql); 0 = two per CPU core"),
      settings::integer("hash_workers", s.hash_workers, 0, 64, "concurrent password hashes; 0 = one per core"),
      settings::integer("upstream_workers", s.upstream_workers, 1, 64, "concurrent calls to identity providers"),
      settings::integer("queue_limit", s.queue_limit, 1, 100000, "requests waiting per lane; beyond: 503"),
      settings::integer("max_body_bytes", s.max_body_bytes, 1024, 16 << 20, "largest request body; beyond: 413"),
      settings::milliseconds("request_read_timeout_ms", s.request_read_timeout, 100, 600000,
                             "a request must arrive whole within this time of its first byte; beyond: 408 or dropped"),
      settings::integer("max_connections", s.max_connections, 0, 1 << 20,
                        "FastCGI connections open at once (FCGI_MAX_CONNS); beyond, new ones wait; 0 = open-file limit - 64"),
      settings::milliseconds("idle_connection_timeout_ms", s.idle_connection_timeout, 100, 86400000,
                             "a kept connection without a request for this long is closed (management records do not count)"),
      settings::integer("output_pause_bytes", s.output_pause_bytes, 4096, 1 << 30,
                        "unsent output of a connection above which authd stops reading it"),
      settings::integer("output_limit_bytes", s.output_limit_bytes, 65536, 1 << 30,
                        "unsent output of a connection above which it is closed (at least output_pause_bytes)"),
      settings::integer("max_request_params", s.max_request_params, 16, 100000,
                        "FastCGI parameters (headers and all) per request; beyond: 413 and the connection closed"),
      settings::integer("early_answer_discard_bytes", s.early_answer_discard_bytes, 0, 1 << 30,
                        "rest of a request read and dropped after an early answer (413, 400) on a kept connection; beyond: closed"),
      settings::integer("max_json_depth", s.max_json_depth, 2, 256, "deepest JSON nesting accepted"),
      settings::choice("cookie_secure", s.cookie_secure,
                       {{"auto", CookieSecure::automatic}, {"always", CookieSecure::always},
                        {"never", CookieSecure::never}},
                       "Secure attribute of cookies: auto (when HTTPS), always or never"),
      std::move(log_level),
      std::move(base_path),
      http::address_list_setting("metrics_allow", s.metrics_allow,
                                 "addresses and CIDR ranges that may GET /metrics (the client address)"),
      http::trusted_proxies_setting(s.trusted_proxies),
      std::move(front_secret),
  };
}

Result<std::string> parse_base_path(std::string_view text) {
  if (text == "/") return std::string();
  if (text.size() > 1 && text.back() == '/') text.remove_suffix(1);
  if (text.empty()) return std::string();
  if (text.front() != '/') return fail(Errc::config, "expected a URL path starting with '/', e.g. /auth");
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u >= 0x7f || c == '?' || c == '#' || c == '\\' || c == '%') {
      return fail(Errc::config, "expected a plain URL path (no spaces, '?', '#', '%' or '\\')");
    }
  }
  for (std::string_view rest = text.substr(1);;) {
    const auto slash = std::min(rest.find('/'), rest.size());
    const auto segment = rest.substr(0, slash);
    if (segment.empty() || segment == "." || segment == "..") {
      return fail(Errc::config, "empty, '.' or '..' segment in the path");
    }
    if (slash == rest.size()) break;
    rest.remove_prefix(slash + 1);
  }
  return std::string(text);
}

}  // namespace authd
