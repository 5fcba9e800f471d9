// authd: the FastCGI responder. Accepts on the socket the web server or
// spawn-fcgi hands over as fd 0 (or --listen PATH|:PORT), serves requests on
// a pool of threads, and on SIGTERM/SIGINT lets in-flight requests finish.
#include <fcgiapp.h>
#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cerrno>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>
#include <thread>

#include "app.hpp"
#include "authd/config.hpp"
#include "log.hpp"
#include "routes.hpp"
#include "server.hpp"

namespace {

using namespace authd;

constexpr auto kShutdownGrace = std::chrono::seconds(10);

// request_read_timeout_ms (AUTHD_REQUEST_READ_TIMEOUT_MS): how long a request
// may take to arrive whole, from its first byte (see ServerOptions).
// TODO(settings tables): a row in the server's settings table.
constexpr long kReadTimeoutDefaultMs = 10000;
constexpr long kReadTimeoutMinMs = 100;
constexpr long kReadTimeoutMaxMs = 600000;

Result<std::chrono::milliseconds> request_read_timeout(const EnvLookup& env) {
  const char* text = env("AUTHD_REQUEST_READ_TIMEOUT_MS");
  if (!text || !*text) return std::chrono::milliseconds(kReadTimeoutDefaultMs);
  char* end = nullptr;
  errno = 0;
  const long value = std::strtol(text, &end, 10);
  if (errno != 0 || *end != '\0' || value < kReadTimeoutMinMs || value > kReadTimeoutMaxMs) {
    return fail(Errc::config, "AUTHD_REQUEST_READ_TIMEOUT_MS: expected whole milliseconds from " +
                                  std::to_string(kReadTimeoutMinMs) + " to " + std::to_string(kReadTimeoutMaxMs));
  }
  return std::chrono::milliseconds(value);
}

// FCGI_WEB_SERVER_ADDRS: comma-separated peer addresses allowed on a TCP
// socket, as libfcgi reads it.
std::vector<std::string> web_server_addrs(const EnvLookup& env) {
  std::vector<std::string> out;
  const char* text = env("FCGI_WEB_SERVER_ADDRS");
  std::string_view rest = text ? text : "";
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (!item.empty()) out.emplace_back(item);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
  }
  return out;
}

struct Options {
  std::string listen;  // empty: fd 0 from the web server / spawn-fcgi
  bool check = false;  // validate config and state, then exit
};

void usage() {
  std::fputs(
      "usage: authd [--listen PATH|:PORT] [--check]\n"
      "  Runs as a FastCGI responder on fd 0 (spawn-fcgi -s SOCKET -- authd),\n"
      "  or on its own socket with --listen. --check validates the configuration,\n"
      "  the state directory and the signing key, then exits.\n"
      "  Settings: conf/authd.conf or $AUTHD_CONFIG, overridden by AUTHD_<NAME>.\n",
      stderr);
}

bool parse_options(int argc, char** argv, Options& options) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--listen" && i + 1 < argc) options.listen = argv[++i];
    else if (arg == "--check") options.check = true;
    else return false;
  }
  return true;
}

int listening_socket(const Options& options) {
  if (options.listen.empty()) {
    struct stat info{};
    if (::fstat(0, &info) != 0 || !S_ISSOCK(info.st_mode)) return -1;
    return 0;
  }
  return FCGX_OpenSocket(options.listen.c_str(), 128);
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  if (!parse_options(argc, argv, options)) {
    usage();
    return 2;
  }
  const EnvLookup env = [](const char* name) { return std::getenv(name); };
  const auto source = config_source(env, AUTHD_DEFAULT_CONFIG);
  auto config = load_config(source.file, env, source.optional);
  if (!config) {
    std::fprintf(stderr, "authd: %s\n", config.error().message.c_str());
    return 1;
  }
  log::set_level(config->log_level);
  auto app = App::create(std::move(*config));
  if (!app) {
    std::fprintf(stderr, "authd: %s\n", app.error().message.c_str());
    return 1;
  }
  if (options.check) {
    std::fputs("authd: configuration, state directory and signing key are usable\n", stderr);
    return 0;
  }

  // Signals: the main thread waits for TERM/INT/HUP; workers never see them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  ::signal(SIGPIPE, SIG_IGN);  // a client that went away must not kill us

  if (FCGX_Init() != 0) {
    std::fputs("authd: cannot initialise libfcgi\n", stderr);
    return 1;
  }
  const int listen_fd = listening_socket(options);
  if (listen_fd < 0) {
    std::fputs("authd: no FastCGI socket: run under a web server or spawn-fcgi "
               "(spawn-fcgi -s SOCKET -- authd), or pass --listen PATH|:PORT\n",
               stderr);
    return 1;
  }

  App& shared = **app;
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const auto read_timeout = request_read_timeout(env);
  if (!read_timeout) {
    std::fprintf(stderr, "authd: %s\n", read_timeout.error().message.c_str());
    return 1;
  }
  ServerOptions server_options{
      .workers = shared.config.workers ? shared.config.workers : 2 * cores,
      .hash_workers = shared.config.hash_workers ? shared.config.hash_workers : cores,
      .upstream_workers = shared.config.upstream_workers,
      .queue_limit = shared.config.queue_limit,
      .max_body_bytes = shared.config.max_body_bytes,
      .request_read_timeout = *read_timeout,
      .web_server_addrs = web_server_addrs(env),
  };
  Server server(listen_fd, server_options, [&shared](http::Request request) { return prepare(shared, std::move(request)); });
  if (auto started = server.start(); !started) {
    std::fprintf(stderr, "authd: %s\n", started.error().message.c_str());
    return 1;
  }
  log::info("serving with " + std::to_string(server_options.workers) + " threads (+" +
            std::to_string(server_options.hash_workers) + " hashing, +" +
            std::to_string(server_options.upstream_workers) + " for identity providers), state in " +
            shared.config.state_dir.string());

  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  log::info(std::string("received ") + strsignal(signal_number) + ", finishing in-flight requests");
  if (!server.stop(kShutdownGrace)) {
    log::warn("the grace period ran out: requests not yet started were answered 503");
  }
  log::info("stopped");
  return 0;
}
