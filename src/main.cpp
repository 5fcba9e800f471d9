// authd: the FastCGI responder. Accepts on the socket the web server or
// spawn-fcgi hands over as fd 0 (or --listen PATH|:PORT), serves requests on
// a pool of threads, and on SIGTERM/SIGINT lets in-flight requests finish.
#include <fcgiapp.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "app.hpp"
#include "authd/config.hpp"
#include "http/errors.hpp"
#include "http/fcgi_io.hpp"
#include "log.hpp"
#include "routes.hpp"

namespace {

using namespace authd;

std::atomic<bool> stopping{false};
constexpr auto kShutdownGrace = std::chrono::seconds(10);
constexpr int kPollMillis = 200;

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

// Waits (with a short poll so that shutdown is noticed) until the listening
// socket has a connection, then accepts it. Only one thread waits at a time.
bool accept_next(int listen_fd, std::mutex& accept_mutex, FCGX_Request& request) {
  std::lock_guard lock(accept_mutex);
  while (!stopping.load()) {
    pollfd ready{listen_fd, POLLIN, 0};
    const int n = ::poll(&ready, 1, kPollMillis);
    if (n < 0 && errno != EINTR) return false;
    if (n <= 0) continue;
    const int rc = FCGX_Accept_r(&request);
    if (rc == 0) return true;
    if (!stopping.load()) log::warn("accept failed: " + std::string(std::strerror(-rc)));
  }
  return false;
}

void serve(App& app, int listen_fd, std::mutex& accept_mutex) {
  FCGX_Request request;
  FCGX_InitRequest(&request, listen_fd, FCGI_FAIL_ACCEPT_ON_INTR);
  while (accept_next(listen_fd, accept_mutex, request)) {
    auto incoming = http::read_request(request, app.config.max_body_bytes);
    const http::Response response =
        incoming ? dispatch(app, *incoming) : http::error_response(incoming.error());
    http::write_response(request, response);
    FCGX_Finish_r(&request);
  }
  FCGX_Free(&request, 1);
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
  const unsigned workers = shared.config.workers ? shared.config.workers
                                                 : 2 * std::max(1u, std::thread::hardware_concurrency());
  std::mutex accept_mutex;
  std::mutex done_mutex;
  std::condition_variable done_cv;
  unsigned finished = 0;
  std::vector<std::thread> pool;
  for (unsigned i = 0; i < workers; ++i) {
    pool.emplace_back([&] {
      serve(shared, listen_fd, accept_mutex);
      std::lock_guard lock(done_mutex);
      ++finished;
      done_cv.notify_all();
    });
  }
  log::info("serving with " + std::to_string(workers) + " threads, state in " + shared.config.state_dir.string());

  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  log::info(std::string("received ") + strsignal(signal_number) + ", finishing in-flight requests");
  stopping = true;
  FCGX_ShutdownPending();

  std::unique_lock lock(done_mutex);
  if (!done_cv.wait_for(lock, kShutdownGrace, [&] { return finished == workers; })) {
    log::warn("requests still running after the grace period; exiting anyway");
    std::_Exit(0);  // LMDB stays consistent: an unfinished write transaction is simply not committed
  }
  lock.unlock();
  for (auto& thread : pool) thread.join();
  log::info("stopped");
  return 0;
}
