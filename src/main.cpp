// authd: the FastCGI responder. Accepts on the socket the web server or
// spawn-fcgi hands over as fd 0 (or --listen PATH|:PORT), serves requests on
// a pool of threads, and on SIGTERM/SIGINT lets in-flight requests finish.
// Started as a CGI program instead (shared hosting), it answers one request
// (cgi_mode.hpp).
#include <fcgiapp.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "app.hpp"
#include "base_path.hpp"
#include "cgi_mode.hpp"
#include "log.hpp"
#include "server.hpp"

namespace {

using namespace authd;

constexpr auto kShutdownGrace = std::chrono::seconds(10);

struct Options {
  std::string listen;  // empty: fd 0 from the web server / spawn-fcgi
  bool check = false;         // validate config and state, then exit
  bool print_config = false;  // print the effective settings, then exit
};

void usage() {
  std::fputs(
      "usage: authd [--listen PATH|:PORT|HOST:PORT] [--check] [--print-config]\n"
      "  Runs as a FastCGI responder on fd 0 (spawn-fcgi -s SOCKET -- authd),\n"
      "  or on its own socket with --listen (:PORT is 127.0.0.1 only); started as a CGI program (GATEWAY_INTERFACE\n"
      "  set, no socket) it answers the one request. --check validates the configuration,\n"
      "  the state directory and the signing key, then exits. --print-config prints\n"
      "  the effective settings (secrets redacted) and exits.\n"
      "  Settings: conf/authd.conf or $AUTHD_CONFIG, overridden by AUTHD_<NAME>.\n",
      stderr);
}

bool parse_options(int argc, char** argv, Options& options) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--listen" && i + 1 < argc) options.listen = argv[++i];
    else if (arg == "--check") options.check = true;
    else if (arg == "--print-config") options.print_config = true;
    else return false;
  }
  return true;
}

// ":PORT" means this machine only: libfcgi's FCGX_OpenSocket(":PORT") would
// listen on every interface, open to anyone who can reach the host and bypass
// the web server. "0.0.0.0:PORT" still asks for every interface explicitly.
int loopback_socket(std::string_view port_text) {
  int port = 0;
  const auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (ec != std::errc() || end != port_text.data() + port_text.size() || port < 1 || port > 65535) return -1;
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  const int on = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 || ::listen(fd, 128) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

int listening_socket(const Options& options) {
  if (options.listen.empty()) {
    struct stat info{};
    if (::fstat(0, &info) != 0 || !S_ISSOCK(info.st_mode)) return -1;
    return 0;
  }
  if (options.listen.front() == ':') return loopback_socket(std::string_view(options.listen).substr(1));
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
  auto settings = load_program_settings(env, AUTHD_DEFAULT_CONFIG);
  if (!settings) {
    std::fprintf(stderr, "authd: %s\n", settings.error().message.c_str());
    return 1;
  }
  if (options.print_config) {
    std::fputs(settings->effective.c_str(), stdout);
    return 0;
  }
  log::set_level(settings->server.log_level);
  // store = postgresql reports database outages and recoveries here.
  settings->core.store.postgres.log_warning = [](std::string_view message) { log::warn(message); };
  settings->core.store.postgres.log_info = [](std::string_view message) { log::info(message); };
  const std::string state_dir = settings->core.store.lmdb.directory.string();
  auto app = App::create(std::move(*settings));
  if (!app) {
    std::fprintf(stderr, "authd: %s\n", app.error().message.c_str());
    return 1;
  }
  if (options.check) {
    std::fputs("authd: configuration, state directory and signing key are usable\n", stderr);
    return 0;
  }
  // Shared hosting without mod_fcgid: one request from the environment, then exit.
  if (options.listen.empty() && started_as_cgi()) return serve_cgi_request(**app);

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
  ServerOptions server_options{
      .accept_workers = shared.server.workers ? shared.server.workers : 2 * cores,
      .hash_workers = shared.server.hash_workers ? shared.server.hash_workers : cores,
      .upstream_workers = shared.server.upstream_workers,
      .queue_limit = shared.server.queue_limit,
      .max_body_bytes = shared.server.max_body_bytes,
  };
  Server server(listen_fd, server_options, [&shared](http::Request request) { return prepare_mounted(shared, std::move(request)); });
  server.start();
  log::info("serving with " + std::to_string(server_options.accept_workers) + " threads (+" +
            std::to_string(server_options.hash_workers) + " hashing, +" +
            std::to_string(server_options.upstream_workers) + " for identity providers), state in " +
            state_dir + " (" + std::string(shared.core->store().name()) + ")");

  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  log::info(std::string("received ") + strsignal(signal_number) + ", finishing in-flight requests");
  if (!server.stop(kShutdownGrace)) {
    log::warn("requests still running after the grace period; exiting anyway");
    std::_Exit(0);  // LMDB stays consistent: an unfinished write transaction is simply not committed
  }
  log::info("stopped");
  return 0;
}
