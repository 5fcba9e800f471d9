#include "program/server_settings.hpp"

#include "http/forwarded.hpp"

namespace authd {

namespace {

// The serving limits' rows: one a field of fcgi::Limits (fcgi/limits.hpp,
// where their defaults are), in the order the docs list them.
std::vector<settings::Setting> limit_settings(fcgi::Limits& l) {
  return {
      settings::integer("max_body_bytes", l.max_body_bytes, 1024, 16 << 20,
                        "Largest request body accepted, in bytes; a larger one gets 413. Keep the web server's own "
                        "limit (lighttpd server.max-request-size) in line with it."),
      settings::milliseconds("request_read_timeout_ms", l.request_read_timeout, 100, 600000,
                             "How long a request may take to reach authd whole, in milliseconds from its first "
                             "byte. A late request is answered 408 (or its connection dropped when not even its "
                             "FCGI_BEGIN_REQUEST came); a response the web server stops taking for as long is "
                             "dropped. Slow clients cost authd a socket, never a thread: requests are read by an "
                             "event loop and handed to a thread only when complete."),
      settings::integer("max_connections", l.max_connections, 0, 1 << 20,
                        "FastCGI connections open at once, also told to the web server as FCGI_MAX_CONNS; "
                        "beyond, new ones wait in the socket's backlog; "
                        "0 = the open-file limit - 64."),
      settings::milliseconds("idle_connection_timeout_ms", l.idle_connection_timeout, 100, 86400000,
                             "A kept FastCGI connection without a request for this long is closed, in "
                             "milliseconds (FCGI_GET_VALUES and other management records do not count as "
                             "requests)."),
      settings::integer("output_pause_bytes", l.output_pause_bytes, 4096, 1 << 30,
                        "Unsent output of a connection, in bytes, above which authd stops reading it."),
      settings::integer("output_limit_bytes", l.output_limit_bytes, 65536, 1 << 30,
                        "Unsent output of a connection, in bytes, above which authd closes it."),
      settings::integer("max_request_params", l.max_request_params, 16, 100000,
                        "FastCGI parameters (CGI variables and headers) per request; beyond, 413 and the "
                        "connection closed."),
      settings::integer("early_answer_discard_bytes", l.early_answer_discard_bytes, 0, 1 << 30,
                        "After an early answer (413, 400) on a kept connection, authd reads and drops the rest of "
                        "the request before ending it, up to this many bytes and one read timeout; beyond, it "
                        "closes the connection."),
  };
}

}  // namespace

std::vector<settings::Setting> server_settings(ServerSettings& s) {
  auto log_level = settings::text("log_level", s.log_level,
                                  "What authd logs to stderr: error, warn, info or debug. Passwords, tokens and "
                                  "keys are never logged.");
  log_level.kind = settings::Kind::choice;
  log_level.choices = {"error", "warn", "info", "debug"};
  log_level.group = "Operations";
  log_level.assign = [&s](std::string_view v) -> Result<void> {
    if (v != "error" && v != "warn" && v != "info" && v != "debug") {
      return fail(Errc::config, "expected error, warn, info or debug");
    }
    s.log_level = std::string(v);
    return {};
  };
  settings::Setting base_path = settings::text(
      "base_path", s.base_path,
      "URL prefix authd is served under, for a front end that passes the whole path (e.g. /auth, for "
      "/auth/signup): authd removes it before routing, answers 404 to paths outside it, and writes it into the "
      "URLs it makes (Location of a new record, Path of the OAuth state cookie; the `auth` cookie keeps Path=/). "
      "Empty: the site root. Not needed on shared hosting, where the .htaccess of install.sh runs authd as a "
      "script and SCRIPT_NAME tells the prefix.");
  base_path.group = "Front server and proxies";
  base_path.assign = [&s](std::string_view v) -> Result<void> {
    auto path = parse_base_path(v);
    if (!path) return std::unexpected(path.error());
    s.base_path = std::move(*path);
    return {};
  };
  auto front_secret = settings::secret(
      "front_secret", s.front_secret,
      "On a TCP listener (spawn-fcgi -a/-p, --listen HOST:PORT: only the Apache authorizer needs one) any local "
      "user could connect and send a REMOTE_ADDR of their choosing, so authd refuses to start there without "
      "front_secret and answers 403 to every request whose FastCGI parameter AUTHD_FRONT_SECRET is not this value "
      "(conf/apache/authorizer.conf sends it). 16 characters or more, e.g. `openssl rand -hex 32`; better "
      "AUTHD_FRONT_SECRET in authd's environment than in this file. Unix sockets (every other shipped "
      "configuration) need none.");
  front_secret.group = "Front server and proxies";
  front_secret.assign = [&s](std::string_view v) -> Result<void> {
    if (v.size() < 16) return fail(Errc::config, "expected at least 16 characters (e.g. openssl rand -hex 32)");
    s.front_secret = std::string(v);
    return {};
  };
  auto cookie_secure = settings::choice("cookie_secure", s.cookie_secure,
                                        {{"auto", CookieSecure::automatic}, {"always", CookieSecure::always},
                                         {"never", CookieSecure::never}},
                                        "The Secure attribute of the cookies authd sets: auto (when the request "
                                        "came over HTTPS), always, or never.");
  cookie_secure.group = "Tokens";
  auto metrics_allow = http::address_list_setting(
      "metrics_allow", s.metrics_allow,
      "GET /metrics (Prometheus text format) answers only clients whose address (REMOTE_ADDR as the web server "
      "passes it) is in this list of addresses and CIDR ranges, separated by spaces or commas; others get 404.");
  metrics_allow.group = "Operations";
  auto trusted_proxies = http::trusted_proxies_setting(s.trusted_proxies);
  trusted_proxies.group = "Front server and proxies";
  // The rest: requests, connections and the work lanes (SECURITY.md, third round, classes 4 and 5).
  std::vector<settings::Setting> rows = {
      settings::integer("event_loops", s.event_loops, 0, 256,
                        "Event loops, each accepting FastCGI connections from the shared socket and answering the "
                        "requests that cannot block (the guard, token checks, record reads on LMDB, JWKS, health; on "
                        "PostgreSQL the guarded and capability reads its caches answer) on the "
                        "loop that read them; 0 = one per CPU core. When the web server shares those cores and runs "
                        "fewer workers than there are cores (nginx's worker_processes 1 on a small machine), as many "
                        "loops as it has workers are cheaper (docs/performance.md)."),
      settings::integer("workers", s.workers, 0, 256,
                        "Threads answering the requests that must wait on the store: on PostgreSQL its writes and "
                        "the reads its caches cannot answer; on LMDB with sync_writes the writes (sign-out, "
                        "refresh, /token, records), whose commits flush to the disk, writes arriving together "
                        "sharing one flush. With LMDB and sync_writes = false every request is answered on the "
                        "event loops. 0 = two per CPU core on PostgreSQL, eight on LMDB (its store threads "
                        "mostly wait for the flush, and the more wait, the more writes share one)."),
      settings::integer("hash_workers", s.hash_workers, 0, 64,
                        "Password hashing and identity-provider calls run on their own bounded lanes so that they "
                        "never take every request thread: at most this many argon2id hashes run at once; 0 = one "
                        "per CPU core."),
      settings::integer("upstream_workers", s.upstream_workers, 1, 64,
                        "Calls to identity providers running at once (the upstream lane)."),
      settings::integer("queue_limit", s.queue_limit, 1, 100000,
                        "Requests that may wait for each lane; beyond, 503 with Retry-After."),
  };
  for (auto& row : limit_settings(s.limits)) rows.push_back(std::move(row));
  rows.insert(rows.end(), {
      settings::integer("max_json_depth", s.max_json_depth, 2, 256, "Deepest JSON nesting accepted in a request body."),
      std::move(cookie_secure),
      std::move(log_level),
      std::move(base_path),
      std::move(metrics_allow),
      std::move(trusted_proxies),
      std::move(front_secret),
  });
  return settings::grouped("Requests and connections", std::move(rows));
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
