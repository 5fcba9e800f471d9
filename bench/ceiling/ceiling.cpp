// authd_ceiling: the architecture's ceiling for `make bench`.
//
// A FastCGI responder built from libfcgi that does no auth work at all: it
// answers every request with 200 and a fixed JSON body. Everything else is
// authd's: it accepts on the socket handed over as fd 0 (spawn-fcgi), runs the
// same number of request threads (AUTHD_WORKERS, default two per core), and
// the threads take turns accepting with the same mutex + poll pattern as
// authd's libfcgi server. Whatever authd costs on top of this is the price of
// auth.
//
// Kept connections (nginx `fastcgi_keep_conn on`, Apache `enablereuse=on`:
// FCGI_KEEP_CONN): plain libfcgi keeps the connection in the FCGX_Request
// after FCGX_Finish_r, and the thread then waits for the next request on it,
// so each kept connection holds one thread; run as many threads as the web
// server keeps connections (bench/run.sh does).
//
// AUTHD_CEILING_PROCESSES=N (default 1): N processes (forked at start, one
// process group, all accepting on the same socket) of AUTHD_WORKERS threads
// each: with AUTHD_WORKERS=1, the classic pool of single-threaded libfcgi
// responders, one per connection the front server opens.
//
//   AUTHD_CEILING_BODY='[]' spawn-fcgi -n -s /tmp/x.sock -- build-bench/bench/authd_ceiling
#include <fcgiapp.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace {

std::atomic<bool> stopping{false};
// In a pool of processes (AUTHD_CEILING_PROCESSES > 1) each waits in libfcgi's
// own blocking accept(), as a plain libfcgi responder does: the kernel wakes
// one waiter per connection.
bool plain_accept = false;
constexpr int kPollMillis = 200;  // as authd: shutdown is noticed within this

// The answer, built once: the headers authd sends with a JSON 200 (Status,
// Content-Type, Content-Length) and the body AUTHD_CEILING_BODY (bench/run.sh
// passes the very body authd answers to the guarded read, so that lighttpd
// carries the same bytes back), or a small JSON object.
std::string response_text() {
  const char* body = std::getenv("AUTHD_CEILING_BODY");
  const std::string_view text = body && *body ? std::string_view(body) : std::string_view("{\"ok\":true}");
  std::string out = "Status: 200 OK\r\nContent-Type: application/json\r\nContent-Length: ";
  out += std::to_string(text.size());
  out += "\r\n\r\n";
  out += text;
  return out;
}

unsigned process_count() {
  const char* text = std::getenv("AUTHD_CEILING_PROCESSES");
  if (!text || !*text) return 1;
  char* end = nullptr;
  const unsigned long n = std::strtoul(text, &end, 10);
  if (end && *end == '\0' && n > 0 && n <= 1024) return static_cast<unsigned>(n);
  std::fprintf(stderr, "authd_ceiling: AUTHD_CEILING_PROCESSES must be 1 to 1024, not '%s'\n", text);
  std::exit(1);
}

unsigned worker_count() {
  if (const char* text = std::getenv("AUTHD_WORKERS"); text && *text) {
    char* end = nullptr;
    const unsigned long n = std::strtoul(text, &end, 10);
    if (end && *end == '\0' && n > 0 && n <= 1024) return static_cast<unsigned>(n);
    if (end && *end == '\0' && n == 0) return 2 * std::max(1u, std::thread::hardware_concurrency());
    std::fprintf(stderr, "authd_ceiling: AUTHD_WORKERS must be a number of threads, not '%s'\n", text);
    std::exit(1);
  }
  return 2 * std::max(1u, std::thread::hardware_concurrency());
}

// The same accept discipline as authd's libfcgi server: one thread at a time
// waits in poll() on the listening socket, then accepts. A connection the web
// server keeps stays in request.ipcFd: FCGX_Accept_r then reads the next
// request from it (and accepts a new connection by itself once the server
// closes it). Polling the listening socket instead would leave that request
// waiting until some other connection arrives.
bool accept_next(int listen_fd, std::mutex& accept_mutex, FCGX_Request& request) {
  if (request.ipcFd >= 0 || plain_accept) return !stopping.load() && FCGX_Accept_r(&request) == 0;
  std::lock_guard lock(accept_mutex);
  while (!stopping.load()) {
    pollfd ready{listen_fd, POLLIN, 0};
    const int n = ::poll(&ready, 1, kPollMillis);
    if (n < 0 && errno != EINTR) return false;
    if (n <= 0) continue;
    if (FCGX_Accept_r(&request) == 0) return true;
  }
  return false;
}

void serve(int listen_fd, std::mutex& accept_mutex, std::string_view response) {
  FCGX_Request request;
  FCGX_InitRequest(&request, listen_fd, FCGI_FAIL_ACCEPT_ON_INTR);
  while (accept_next(listen_fd, accept_mutex, request)) {
    // Read what authd reads for a GET: the method and the path parameters.
    (void)FCGX_GetParam("REQUEST_METHOD", request.envp);
    (void)FCGX_GetParam("SCRIPT_NAME", request.envp);
    (void)FCGX_GetParam("PATH_INFO", request.envp);
    (void)FCGX_GetParam("HTTP_AUTHORIZATION", request.envp);
    // The (empty) body, to its end: on a kept connection the next request's
    // records must not find this one's FCGI_STDIN still unread.
    while (FCGX_GetChar(request.in) != EOF) {
    }
    FCGX_PutStr(response.data(), static_cast<int>(response.size()), request.out);
    FCGX_Finish_r(&request);
  }
  FCGX_Free(&request, 1);
}

}  // namespace

int main() {
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  ::signal(SIGPIPE, SIG_IGN);

  struct stat info{};
  if (::fstat(0, &info) != 0 || !S_ISSOCK(info.st_mode)) {
    std::fputs("authd_ceiling: fd 0 is not a socket: run under spawn-fcgi -s SOCKET -- authd_ceiling\n", stderr);
    return 1;
  }
  if (FCGX_Init() != 0) {
    std::fputs("authd_ceiling: cannot initialise libfcgi\n", stderr);
    return 1;
  }
  const unsigned workers = worker_count();
  const unsigned processes = process_count();
  plain_accept = processes > 1;
  const std::string response = response_text();
  // The pool: fork before any thread exists. The children stay in this
  // process group (bench/run.sh stops and measures the group) and end when
  // it is sent SIGTERM, like this process.
  for (unsigned i = 1; i < processes; ++i) {
    const pid_t child = ::fork();
    if (child < 0) {
      std::perror("authd_ceiling: fork");
      return 1;
    }
    if (child == 0) break;
  }
  std::mutex accept_mutex;
  std::vector<std::thread> pool;
  pool.reserve(workers);
  for (unsigned i = 0; i < workers; ++i) pool.emplace_back([&] { serve(0, accept_mutex, response); });
  std::fprintf(stderr, "authd_ceiling: pid %d serving with %u threads\n", static_cast<int>(::getpid()), workers);

  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  stopping = true;
  FCGX_ShutdownPending();
  // Threads may be blocked reading a kept connection or in libfcgi's own
  // accept(): nothing to finish or save here, so leave without joining them.
  std::fflush(stderr);
  std::_Exit(0);
}
