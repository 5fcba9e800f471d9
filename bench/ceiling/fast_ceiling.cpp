// authd_fast_ceiling: the fastest trivial FastCGI responder we can give a
// front server, for `make bench` (issue 26): the true ceiling, not one built
// like authd.
//
// No libfcgi and no auth work: one epoll loop per core (AUTHD_WORKERS
// threads, default one per core), each accepting on the shared listening
// socket (fd 0, from spawn-fcgi) registered with EPOLLEXCLUSIVE, so that one
// loop wakes per new connection. Each loop reads the records of its
// connections and answers every request inline, as soon as its FCGI_STDIN
// ends, with the same bytes as authd's guarded read (AUTHD_CEILING_BODY,
// wrapped in the headers authd sends). FastCGI as the specification has it:
// FCGI_KEEP_CONN (the connection stays open; without it, closed once the
// answer is out), several requests at once on one connection (each request
// id answered on its own; FCGI_MPXS_CONNS = 1 in FCGI_GET_VALUES_RESULT),
// FCGI_ABORT_REQUEST, unknown roles (FCGI_UNKNOWN_ROLE) and unknown
// management records (FCGI_UNKNOWN_TYPE).
//
//   AUTHD_CEILING_BODY='[]' spawn-fcgi -n -s /tmp/x.sock -- build-bench/bench/authd_fast_ceiling
#include <fcntl.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

namespace {

// FastCGI record types and constants (FastCGI specification 1.0).
enum : std::uint8_t {
  kBeginRequest = 1,
  kAbortRequest = 2,
  kEndRequest = 3,
  kParams = 4,
  kStdin = 5,
  kStdout = 6,
  kGetValues = 9,
  kGetValuesResult = 10,
  kUnknownType = 11,
};
constexpr std::uint16_t kResponder = 1;
constexpr std::uint8_t kKeepConn = 1;
constexpr std::uint8_t kRequestComplete = 0;
constexpr std::uint8_t kUnknownRole = 3;
constexpr std::size_t kHeaderSize = 8;

void put_header(std::string& out, std::uint8_t type, std::uint16_t id, std::size_t length, std::uint8_t padding = 0) {
  const char header[kHeaderSize] = {1,
                                    static_cast<char>(type),
                                    static_cast<char>(id >> 8),
                                    static_cast<char>(id & 0xff),
                                    static_cast<char>((length >> 8) & 0xff),
                                    static_cast<char>(length & 0xff),
                                    static_cast<char>(padding),
                                    0};
  out.append(header, kHeaderSize);
}

void put_end_request(std::string& out, std::uint16_t id, std::uint8_t protocol_status) {
  put_header(out, kEndRequest, id, 8);
  const char body[8] = {0, 0, 0, 0, static_cast<char>(protocol_status), 0, 0, 0};
  out.append(body, sizeof body);
}

// The answer to every request, request id 0: FCGI_STDOUT with the CGI
// response (padded to 8 bytes), the empty FCGI_STDOUT, FCGI_END_REQUEST.
// Request ids are patched in per request (bytes 2-3 of each header).
struct Answer {
  std::string bytes;
  std::vector<std::size_t> header_offsets;
};

Answer make_answer() {
  const char* body = std::getenv("AUTHD_CEILING_BODY");
  const std::string_view text = body && *body ? std::string_view(body) : std::string_view("{\"ok\":true}");
  std::string cgi = "Status: 200 OK\r\nContent-Type: application/json\r\nContent-Length: ";
  cgi += std::to_string(text.size());
  cgi += "\r\n\r\n";
  cgi += text;
  Answer answer;
  for (std::size_t at = 0; at < cgi.size(); at += 65528) {
    const std::size_t length = std::min<std::size_t>(65528, cgi.size() - at);
    const auto padding = static_cast<std::uint8_t>((8 - length % 8) % 8);
    answer.header_offsets.push_back(answer.bytes.size());
    put_header(answer.bytes, kStdout, 0, length, padding);
    answer.bytes.append(cgi, at, length);
    answer.bytes.append(padding, '\0');
  }
  answer.header_offsets.push_back(answer.bytes.size());
  put_header(answer.bytes, kStdout, 0, 0);
  answer.header_offsets.push_back(answer.bytes.size());
  put_end_request(answer.bytes, 0, kRequestComplete);
  return answer;
}

// FastCGI name-value pair lengths: 1 byte, or 4 bytes with the top bit set.
bool read_length(std::string_view& in, std::size_t& length) {
  if (in.empty()) return false;
  const auto first = static_cast<unsigned char>(in[0]);
  if (!(first & 0x80)) {
    length = first;
    in.remove_prefix(1);
    return true;
  }
  if (in.size() < 4) return false;
  length = (static_cast<std::size_t>(first & 0x7f) << 24) | (static_cast<std::size_t>(static_cast<unsigned char>(in[1])) << 16) |
           (static_cast<std::size_t>(static_cast<unsigned char>(in[2])) << 8) | static_cast<unsigned char>(in[3]);
  in.remove_prefix(4);
  return true;
}

void put_pair(std::string& out, std::string_view name, std::string_view value) {
  out += static_cast<char>(name.size());
  out += static_cast<char>(value.size());
  out += name;
  out += value;
}

struct Connection {
  int fd = -1;
  std::string in;
  std::size_t in_used = 0;  // bytes of `in` already parsed
  std::string out;
  std::size_t out_sent = 0;
  bool want_write = false;
  bool close_after_flush = false;
  // Requests begun and not yet answered: id -> keep the connection after it.
  std::unordered_map<std::uint16_t, bool> requests;
};

class Loop {
 public:
  Loop(int listen_fd, const Answer& answer) : listen_fd_(listen_fd), answer_(answer) {}

  void run() {
    epoll_ = ::epoll_create1(EPOLL_CLOEXEC);
    if (epoll_ < 0) die("epoll_create1");
    epoll_event listen_event{};
    listen_event.events = EPOLLIN | EPOLLEXCLUSIVE;
    listen_event.data.ptr = nullptr;
    if (::epoll_ctl(epoll_, EPOLL_CTL_ADD, listen_fd_, &listen_event) != 0) die("epoll_ctl(listening socket)");
    std::array<epoll_event, 256> events{};
    for (;;) {
      const int n = ::epoll_wait(epoll_, events.data(), static_cast<int>(events.size()), -1);
      if (n < 0) {
        if (errno == EINTR) continue;
        die("epoll_wait");
      }
      for (int i = 0; i < n; ++i) {
        auto* conn = static_cast<Connection*>(events[static_cast<std::size_t>(i)].data.ptr);
        if (!conn) {
          accept_all();
          continue;
        }
        const std::uint32_t what = events[static_cast<std::size_t>(i)].events;
        bool alive = true;
        if (what & (EPOLLIN | EPOLLHUP | EPOLLERR)) alive = on_readable(*conn);
        if (alive && (what & EPOLLOUT)) alive = flush(*conn);
        if (!alive) close_connection(conn);
      }
    }
  }

 private:
  [[noreturn]] static void die(const char* what) {
    std::fprintf(stderr, "authd_fast_ceiling: %s: %s\n", what, std::strerror(errno));
    std::_Exit(1);
  }

  void accept_all() {
    for (;;) {
      const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) {
        if (errno == EINTR || errno == ECONNABORTED) continue;
        return;  // EAGAIN: another loop took it, or none left; EMFILE etc.: try on the next wake-up
      }
      auto conn = std::make_unique<Connection>();
      conn->fd = fd;
      // The front server writes its request as soon as it has connected, most
      // often before the connection is accepted: read and answer it now (as
      // authd does), and register the connection only if it stays open.
      if (!on_readable(*conn)) {
        ::close(fd);
        continue;
      }
      epoll_event event{};
      event.events = EPOLLIN | EPOLLRDHUP | (conn->want_write ? EPOLLOUT : 0u);
      event.data.ptr = conn.get();
      if (::epoll_ctl(epoll_, EPOLL_CTL_ADD, fd, &event) != 0) {
        ::close(fd);
        continue;
      }
      connections_.emplace(conn.get(), std::move(conn));
    }
  }

  void close_connection(Connection* conn) {
    ::close(conn->fd);  // also removes it from the epoll set
    connections_.erase(conn);
  }

  // false: close the connection.
  bool on_readable(Connection& conn) {
    for (;;) {
      char buffer[16384];
      const ssize_t got = ::read(conn.fd, buffer, sizeof buffer);
      if (got > 0) {
        conn.in.append(buffer, static_cast<std::size_t>(got));
        if (static_cast<std::size_t>(got) < sizeof buffer) break;
        continue;
      }
      if (got == 0) return false;  // the front server closed it
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) break;
      return false;
    }
    if (!parse(conn)) return false;
    return flush(conn);
  }

  // Handles every complete record in conn.in; false on a protocol error.
  bool parse(Connection& conn) {
    while (conn.in.size() - conn.in_used >= kHeaderSize) {
      const auto* h = reinterpret_cast<const unsigned char*>(conn.in.data() + conn.in_used);
      if (h[0] != 1) return false;
      const std::uint8_t type = h[1];
      const auto id = static_cast<std::uint16_t>((h[2] << 8) | h[3]);
      const std::size_t length = (static_cast<std::size_t>(h[4]) << 8) | h[5];
      const std::size_t total = kHeaderSize + length + h[6];
      if (conn.in.size() - conn.in_used < total) break;
      const std::string_view content(conn.in.data() + conn.in_used + kHeaderSize, length);
      conn.in_used += total;
      on_record(conn, type, id, content);
    }
    if (conn.in_used == conn.in.size()) {
      conn.in.clear();
      conn.in_used = 0;
    } else if (conn.in_used > 65536) {
      conn.in.erase(0, conn.in_used);
      conn.in_used = 0;
    }
    return true;
  }

  void on_record(Connection& conn, std::uint8_t type, std::uint16_t id, std::string_view content) {
    if (id == 0) {  // management records
      if (type == kGetValues) {
        std::string pairs;
        std::string_view in = content;
        std::size_t name_length = 0, value_length = 0;
        while (read_length(in, name_length) && read_length(in, value_length) && in.size() >= name_length + value_length) {
          const std::string_view name = in.substr(0, name_length);
          in.remove_prefix(name_length + value_length);
          if (name == "FCGI_MPXS_CONNS") put_pair(pairs, name, "1");
          if (name == "FCGI_MAX_CONNS") put_pair(pairs, name, "10000");
          if (name == "FCGI_MAX_REQS") put_pair(pairs, name, "10000");
        }
        put_header(conn.out, kGetValuesResult, 0, pairs.size());
        conn.out += pairs;
      } else {
        put_header(conn.out, kUnknownType, 0, 8);
        const char body[8] = {static_cast<char>(type), 0, 0, 0, 0, 0, 0, 0};
        conn.out.append(body, sizeof body);
      }
      return;
    }
    switch (type) {
      case kBeginRequest: {
        if (content.size() < 8) return;
        const auto role = static_cast<std::uint16_t>((static_cast<unsigned char>(content[0]) << 8) |
                                                     static_cast<unsigned char>(content[1]));
        const bool keep = static_cast<unsigned char>(content[2]) & kKeepConn;
        if (role != kResponder) {
          put_end_request(conn.out, id, kUnknownRole);
          if (!keep) conn.close_after_flush = true;
          return;
        }
        conn.requests[id] = keep;
        return;
      }
      case kParams:
        return;  // a trivial responder reads none of them
      case kStdin:
        if (content.empty()) answer(conn, id);  // the body has ended: answer now
        return;
      case kAbortRequest:
        if (auto it = conn.requests.find(id); it != conn.requests.end()) {
          const bool keep = it->second;
          conn.requests.erase(it);
          put_end_request(conn.out, id, kRequestComplete);
          if (!keep) conn.close_after_flush = true;
        }
        return;
      default:
        return;  // records of a request we do not know, or of no use to us
    }
  }

  void answer(Connection& conn, std::uint16_t id) {
    auto it = conn.requests.find(id);
    if (it == conn.requests.end()) return;
    const bool keep = it->second;
    conn.requests.erase(it);
    const std::size_t at = conn.out.size();
    conn.out += answer_.bytes;
    for (const std::size_t offset : answer_.header_offsets) {
      conn.out[at + offset + 2] = static_cast<char>(id >> 8);
      conn.out[at + offset + 3] = static_cast<char>(id & 0xff);
    }
    if (!keep) conn.close_after_flush = true;
  }

  // Writes what is pending; false: close the connection (error, or done
  // without FCGI_KEEP_CONN).
  bool flush(Connection& conn) {
    while (conn.out_sent < conn.out.size()) {
      const ssize_t sent = ::send(conn.fd, conn.out.data() + conn.out_sent, conn.out.size() - conn.out_sent, MSG_NOSIGNAL);
      if (sent > 0) {
        conn.out_sent += static_cast<std::size_t>(sent);
        continue;
      }
      if (sent < 0 && errno == EINTR) continue;
      if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        if (!conn.want_write) set_write_interest(conn, true);
        return true;
      }
      return false;
    }
    conn.out.clear();
    conn.out_sent = 0;
    if (conn.want_write) set_write_interest(conn, false);
    return !(conn.close_after_flush && conn.requests.empty());
  }

  void set_write_interest(Connection& conn, bool on) {
    epoll_event event{};
    event.events = EPOLLIN | EPOLLRDHUP | (on ? EPOLLOUT : 0u);
    event.data.ptr = &conn;
    (void)::epoll_ctl(epoll_, EPOLL_CTL_MOD, conn.fd, &event);
    conn.want_write = on;
  }

  int listen_fd_;
  const Answer& answer_;
  int epoll_ = -1;
  std::unordered_map<Connection*, std::unique_ptr<Connection>> connections_;
};

unsigned loop_count() {
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  if (const char* text = std::getenv("AUTHD_WORKERS"); text && *text) {
    char* end = nullptr;
    const unsigned long n = std::strtoul(text, &end, 10);
    if (end && *end == '\0' && n > 0 && n <= 1024) return static_cast<unsigned>(n);
    if (end && *end == '\0' && n == 0) return cores;
    std::fprintf(stderr, "authd_fast_ceiling: AUTHD_WORKERS must be a number of loops, not '%s'\n", text);
    std::exit(1);
  }
  return cores;
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
    std::fputs("authd_fast_ceiling: fd 0 is not a socket: run under spawn-fcgi -s SOCKET -- authd_fast_ceiling\n", stderr);
    return 1;
  }
  const int flags = ::fcntl(0, F_GETFL);
  if (flags < 0 || ::fcntl(0, F_SETFL, flags | O_NONBLOCK) != 0) {
    std::perror("authd_fast_ceiling: fcntl(O_NONBLOCK)");
    return 1;
  }
  const Answer answer = make_answer();
  const unsigned loops = loop_count();
  std::vector<std::thread> threads;
  threads.reserve(loops);
  for (unsigned i = 0; i < loops; ++i) threads.emplace_back([&] { Loop(0, answer).run(); });
  std::fprintf(stderr, "authd_fast_ceiling: serving with %u epoll loops\n", loops);

  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  // Nothing to finish or save: leave without joining the loops.
  std::fflush(stderr);
  std::_Exit(0);
}
