// authd: the FastCGI responder. Accepts on the socket the web server or
// spawn-fcgi hands over as fd 0 (or --listen PATH|:PORT), serves requests on
// a pool of threads, and on SIGTERM/SIGINT lets in-flight requests finish.
// Started as a CGI program instead (shared hosting), it answers one request
// (cgi_mode.hpp).
#include <signal.h>

#include <algorithm>
#include <charconv>
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
#include "base_path.hpp"
#include "cgi_mode.hpp"
#include "listen_socket.hpp"
#include "log.hpp"
#include "mail_sender.hpp"
#include "server.hpp"

namespace {

using namespace authd;

constexpr auto kShutdownGrace = std::chrono::seconds(10);

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

  const auto listen_fd = open_listen_socket(options.listen);
  if (!listen_fd) {
    std::fprintf(stderr, "authd: %s\n", listen_fd.error().message.c_str());
    return 1;
  }

  App& shared = **app;
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  ServerOptions server_options{
      .workers = shared.server.workers ? shared.server.workers : 2 * cores,
      .hash_workers = shared.server.hash_workers ? shared.server.hash_workers : cores,
      .upstream_workers = shared.server.upstream_workers,
      .queue_limit = shared.server.queue_limit,
      .max_body_bytes = shared.server.max_body_bytes,
      .request_read_timeout = shared.server.request_read_timeout,
      .web_server_addrs = web_server_addrs(env),
  };
  Server server(*listen_fd, server_options, [&shared](http::Request request) { return prepare_mounted(shared, std::move(request)); });
  if (auto started = server.start(); !started) {
    std::fprintf(stderr, "authd: %s\n", started.error().message.c_str());
    return 1;
  }
  mail_sender::start(shared);
  log::info("serving with " + std::to_string(server_options.workers) + " threads (+" +
            std::to_string(server_options.hash_workers) + " hashing, +" +
            std::to_string(server_options.upstream_workers) + " for identity providers), state in " +
            state_dir + " (" + std::string(shared.core->store().name()) + ")");

  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  log::info(std::string("received ") + strsignal(signal_number) + ", finishing in-flight requests");
  if (!server.stop(kShutdownGrace)) {
    log::warn("the grace period ran out: requests not yet started were answered 503");
  }
  mail_sender::stop();
  log::info("stopped");
  return 0;
}
