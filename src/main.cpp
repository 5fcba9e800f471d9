// authd: the FastCGI responder. Accepts on the socket systemd (LISTEN_FDS),
// the web server or spawn-fcgi (fd 0) hands over, or --listen PATH|:PORT,
// serves requests on a pool of threads, on SIGHUP re-reads its configuration
// and key ring (serving/app_reload.hpp), and on SIGTERM/SIGINT lets in-flight
// requests finish.
// Started as a CGI program instead (shared hosting), it answers one request
// (serving/cgi_mode.hpp).
#include <signal.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cerrno>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>
#include <thread>

#include "program/app.hpp"
#include "serving/app_reload.hpp"
#include "http/base_path.hpp"
#include "serving/cgi_mode.hpp"
#include "http/front_secret.hpp"
#include "serving/listen_socket.hpp"
#include "program/log.hpp"
#include "serving/logout_sender.hpp"
#include "serving/mail_sender.hpp"
#include "serving/metrics.hpp"
#include "serving/server.hpp"
#include "serving/systemd_daemon.hpp"

namespace {

using namespace authd;

// What the core's services tell authd (Core::open, authd/events.hpp): a
// queued mail wakes the sender, a warning goes to the log, a password
// sign-in's outcome and an invitation's to /metrics. Stateless: one for
// every thread and reload.
class AuthdEvents final : public Events {
 public:
  void mail_queued() override { mail_sender::wake(); }
  void logout_queued() override { logout_sender::wake(); }
  void warning(std::string_view message) override { log::warn(message); }
  void password_sign_in(PasswordOutcome outcome) override {
    if (outcome == PasswordOutcome::throttled) metrics::throttled();
    metrics::signin(to_string(outcome));
  }
  void invitation(InvitationEvent event) override { metrics::invitation(to_string(event)); }
};

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
  std::optional<settings::ReferenceFormat> reference;  // --print-config=FORMAT
  bool help = false;          // -h, --help: the usage on stdout, exit 0
};

// To stdout for --help, to stderr (with exit status 2) for a usage error.
void usage(std::FILE* out) {
  std::fputs(
      "usage: authd [--listen PATH|:PORT|HOST:PORT] [--check] [--print-config[=conf|markdown|man]]\n"
      "  Runs as a FastCGI responder on the socket systemd passes (LISTEN_FDS), else\n"
      "  on fd 0 (spawn-fcgi -s SOCKET -- authd),\n"
      "  or on its own socket with --listen (:PORT is 127.0.0.1 only); started as a CGI program (GATEWAY_INTERFACE\n"
      "  set, no socket) it answers the one request. --check validates the configuration,\n"
      "  the state directory and the signing key, then exits. --print-config prints\n"
      "  the effective settings (secrets redacted) and exits; --print-config=FORMAT prints\n"
      "  the reference of every setting (default, doc) as a config file, Markdown or roff\n"
      "  without reading any configuration.\n"
      "  Settings: " AUTHD_DEFAULT_CONFIG " or $AUTHD_CONFIG, overridden by AUTHD_<NAME>;\n"
      "  SIGHUP re-reads them (and the signing keys), keeping the running ones if invalid.\n"
      "  -h, --help prints this and exits.\n",
      out);
}

bool parse_options(int argc, char** argv, Options& options) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--listen" && i + 1 < argc) options.listen = argv[++i];
    else if (arg == "--check") options.check = true;
    else if (arg == "-h" || arg == "--help") options.help = true;
    else if (arg == "--print-config") options.print_config = true;
    else if (arg.starts_with("--print-config=")) {
      options.reference = settings::reference_format(std::string_view(arg).substr(15));
      if (!options.reference) return false;
    }
    else return false;
  }
  return true;
}

// The store threads by default: two per core on a store reached over the
// network; eight on LMDB, whose store threads only run writes and spend most
// of their time waiting for the flush: the more writers wait, the more share
// one flush (group commit; with four on two cores the OpenID provider's
// refresh and code exchange rows of make bench ran at about half the rate).
unsigned default_workers(const Store& store, unsigned cores) { return (store.waits_on_network() ? 2 : 8) * cores; }

ServerOptions server_options_for(const App& app, const EnvLookup& env) {
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  return ServerOptions{
      .event_loops = app.server.event_loops ? app.server.event_loops : cores,
      .workers = !app.core->store().commits_wait() ? 0
                 : app.server.workers                     ? app.server.workers
                                                          : default_workers(app.core->store(), cores),
      .hash_workers = app.server.hash_workers ? app.server.hash_workers : cores,
      .upstream_workers = app.server.upstream_workers,
      .queue_limit = app.server.queue_limit,
      .limits = app.server.limits,
      .web_server_addrs = web_server_addrs(env),
  };
}

bool same_threads_and_limits(const ServerOptions& a, const ServerOptions& b) {
  return a.event_loops == b.event_loops && a.workers == b.workers && a.hash_workers == b.hash_workers && a.upstream_workers == b.upstream_workers &&
         a.queue_limit == b.queue_limit && a.limits.max_body_bytes == b.limits.max_body_bytes &&
         a.limits.request_read_timeout == b.limits.request_read_timeout;
}

void prepare_logging(ProgramSettings& settings) {
  log::set_level(settings.server.log_level);
  // store = postgresql reports database outages and recoveries here.
  settings.core.store.postgres.log_warning = [](std::string_view message) { log::warn(message); };
  settings.core.store.postgres.log_info = [](std::string_view message) { log::info(message); };
}

// SIGHUP: a configuration that does not load keeps the running one (and
// says why); one that loads replaces it between requests (ReloadableApp).
void reload(ReloadableApp& apps, ProgramSettings& running, const ServerOptions& serving, const EnvLookup& env) {
  systemd::notify("RELOADING=1");
  auto next = load_program_settings(env, AUTHD_DEFAULT_CONFIG, settings::environment_variable_names());
  if (!next) {
    log::error("reload refused, the running configuration stays: " + next.error().message);
    systemd::notify("READY=1\nSTATUS=reload refused: invalid configuration (see the log)");
    return;
  }
  prepare_logging(*next);
  ProgramSettings candidate = *next;
  // The sender works on the App being replaced: stopped first, started again on the App that serves.
  mail_sender::stop();
  logout_sender::stop();
  // Built whole (signing keys loaded) while the running App serves; that
  // one is retired only when the new one is ready (ReloadableApp::replace).
  const auto replaced = apps.replace([&](const App* current) { return App::create(std::move(*next), current); });
  if (!replaced) {
    log::error("reload refused, the running configuration stays: " + replaced.error().message);
    log::set_level(running.server.log_level);
  } else {
    running = std::move(candidate);
    log::info("reloaded the configuration and the signing keys");
    if (App* app = apps.current(); app && !same_threads_and_limits(server_options_for(*app, env), serving)) {
      log::warn("event_loops, workers, hash_workers, upstream_workers, queue_limit, max_body_bytes and "
                "request_read_timeout_ms take effect at the next restart");
    }
  }
  if (App* app = apps.current()) {
    mail_sender::start(*app);
    logout_sender::start(*app);
  }
  systemd::notify(apps.current() ? "READY=1\nSTATUS=serving" : "READY=1\nSTATUS=no usable configuration: answering 503");
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  if (!parse_options(argc, argv, options)) {
    usage(stderr);
    return 2;
  }
  if (options.help) {
    usage(stdout);
    return 0;
  }
  if (options.reference) {
    std::fputs(program_settings_reference(*options.reference).c_str(), stdout);
    return 0;
  }
  const EnvLookup env = [](const char* name) { return std::getenv(name); };
  auto settings = load_program_settings(env, AUTHD_DEFAULT_CONFIG, settings::environment_variable_names());
  if (!settings) {
    std::fprintf(stderr, "authd: %s\n", settings.error().message.c_str());
    return 1;
  }
  if (options.print_config) {
    std::fputs(settings->effective.c_str(), stdout);
    return 0;
  }
  prepare_logging(*settings);
  ProgramSettings running = *settings;  // the serving configuration (a failed reload keeps it)
  // Signals: the main thread waits for TERM/INT/HUP; no other thread may see
  // them, so they are blocked before App::create starts any (the PostgreSQL
  // store's listener, pools): a thread with TERM unblocked would take the
  // default action and kill the process in the middle of a graceful stop.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  ::signal(SIGPIPE, SIG_IGN);  // a client that went away must not kill us
  const std::string state_dir = settings->core.store.lmdb.directory.string();
  static AuthdEvents events;
  auto app = App::create(std::move(*settings), nullptr, events);
  if (!app) {
    std::fprintf(stderr, "authd: %s\n", app.error().message.c_str());
    return 1;
  }
  if (options.check) {
    std::fputs("authd: configuration, state directory and signing key are usable\n", stderr);
    return 0;
  }
  // systemd's socket (authd.socket) comes before fd 0 and CGI.
  const auto systemd_fd = options.listen.empty() ? systemd::listen_fd() : std::nullopt;
  // Shared hosting without mod_fcgid: one request from the environment, then exit.
  if (options.listen.empty() && !systemd_fd && started_as_cgi()) {
    pthread_sigmask(SIG_UNBLOCK, &signals, nullptr);  // one request: the web server's TERM ends it
    return serve_cgi_request(**app);
  }

  const auto listen_fd = systemd_fd ? Result<int>(*systemd_fd) : open_listen_socket(options.listen);
  if (!listen_fd) {
    std::fprintf(stderr, "authd: %s\n", listen_fd.error().message.c_str());
    return 1;
  }

  const ServerOptions server_options = server_options_for(**app, env);
  const std::string store_name(app->get()->core->store().name());
  // Listening on TCP: any local user can connect, so the web server proves
  // itself with front_secret (read at start; a reload does not change it).
  const std::string front_secret = app->get()->server.front_secret;
  if (is_tcp_socket(*listen_fd) && front_secret.empty()) {
    std::fputs("authd: listening on TCP needs the setting front_secret, sent by the web server as the FastCGI "
               "parameter AUTHD_FRONT_SECRET (any local user can connect to a TCP port); or use a unix socket\n",
               stderr);
    return 1;
  }
  ReloadableApp apps(std::move(*app));
  Prepare prepare = [&apps](http::Request&& request) { return apps.prepare(std::move(request)); };
  if (is_tcp_socket(*listen_fd)) prepare = require_front_secret(front_secret, std::move(prepare));
  Server server(*listen_fd, server_options, std::move(prepare));
  if (auto started = server.start(); !started) {
    std::fprintf(stderr, "authd: %s\n", started.error().message.c_str());
    return 1;
  }
  if (App* current = apps.current()) {
    mail_sender::start(*current);
    logout_sender::start(*current);
  }
  const std::string direct_threads = server_options.workers == 0
                                         ? std::string(" answering inline")
                                         : " answering inline what the store's caches hold (+" +
                                               std::to_string(server_options.workers) + " for the store)";
  log::info("serving with " + std::to_string(server_options.event_loops) + " event loops" + direct_threads + " (+" +
            std::to_string(server_options.hash_workers) + " hashing, +" +
            std::to_string(server_options.upstream_workers) + " for identity providers), state in " +
            state_dir + " (" + store_name + ")");
  systemd::notify("READY=1\nSTATUS=serving");

  // The watchdog (WatchdogSec=) hears from the main thread: a wedged one is restarted.
  const auto watchdog = systemd::watchdog_interval();
  int signal_number = 0;
  for (;;) {
    if (watchdog) {
      const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(*watchdog);
      const timespec timeout{.tv_sec = seconds.count(),
                             .tv_nsec = static_cast<long>(std::chrono::nanoseconds(*watchdog - seconds).count())};
      signal_number = sigtimedwait(&signals, nullptr, &timeout);
      if (signal_number < 0) {
        systemd::notify("WATCHDOG=1");
        continue;
      }
    } else if (sigwait(&signals, &signal_number) != 0) {
      continue;
    }
    if (signal_number != SIGHUP) break;
    log::info("received SIGHUP, reloading the configuration");
    reload(apps, running, server_options, env);
  }
  systemd::notify("STOPPING=1");
  log::info(std::string("received ") + strsignal(signal_number) + ", finishing in-flight requests");
  if (!server.stop(kShutdownGrace)) {
    log::warn("the grace period ran out: requests not yet started were answered 503");
  }
  mail_sender::stop();
  logout_sender::stop();
  log::info("stopped");
  return 0;
}
