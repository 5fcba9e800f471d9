// Accepting on the listening socket every loop of the process shares, within
// the connection limit, and closing (which may let accepting resume).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <memory>
#include <type_traits>

#include "serving/event_loop_impl.hpp"
#include "program/log.hpp"

namespace authd {
namespace {

// The peer's address in canonical text form, "" for a non-IP socket.
std::string peer_address(int fd) {
  sockaddr_storage address{};
  socklen_t length = sizeof address;
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) return {};
  char text[INET6_ADDRSTRLEN] = {};
  if (address.ss_family == AF_INET) {
    ::inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(&address)->sin_addr, text, sizeof text);
  } else if (address.ss_family == AF_INET6) {
    ::inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(&address)->sin6_addr, text, sizeof text);
  }
  return text;
}

std::string canonical_address(const std::string& text) {
  unsigned char bytes[sizeof(in6_addr)];
  char out[INET6_ADDRSTRLEN] = {};
  if (::inet_pton(AF_INET, text.c_str(), bytes) == 1) return ::inet_ntop(AF_INET, bytes, out, sizeof out);
  if (::inet_pton(AF_INET6, text.c_str(), bytes) == 1) return ::inet_ntop(AF_INET6, bytes, out, sizeof out);
  return text;
}

}  // namespace

void EventLoop::Impl::close(Connection& c) {
  if (c.fd < 0) return;
  ::close(c.fd);  // also takes it out of the epoll set
  c.fd = -1;
  closed.push_back(c.self);
  --open_count;
  if (at_capacity && open_count < connection_cap()) {
    at_capacity = false;
    if (listening && !accept_paused) set_listen_interest(true);
  }
}

void EventLoop::Impl::bury_closed() {
  for (auto it : closed) {
    if (spare.size() < kSpareConnections) spare.splice(spare.end(), connections, it);
    else connections.erase(it);
  }
  closed.clear();
}

Connection& EventLoop::Impl::open_connection(int fd) {
  if (spare.empty()) {
    connections.emplace_back(*this, fd, limits, turn_time);
  } else {
    // A closed connection's node and buffers, made anew in place: its
    // constructor sets every member, so nothing of the last one stays.
    connections.splice(connections.end(), spare, spare.begin());
    Connection& node = connections.back();
    Connection::Buffers buffers = node.release_buffers();
    static_assert(std::is_nothrow_constructible_v<Connection, ConnectionOwner&, int, const fcgi::Limits&,
                                                  Clock::time_point, Connection::Buffers>);
    std::destroy_at(&node);
    std::construct_at(&node, *this, fd, limits, turn_time, std::move(buffers));
  }
  Connection& c = connections.back();
  c.self = std::prev(connections.end());
  ++open_count;
  return c;
}

// The listening socket is shared by every loop of the process, each
// polling it with EPOLLEXCLUSIVE (a new connection wakes one waiting loop,
// not all of them). An exclusive entry cannot be modified, only removed
// and added again.
void EventLoop::Impl::set_listen_interest(bool on) {
  if (on == listen_registered) return;
  if (!on) {
    ::epoll_ctl(epoll_fd, EPOLL_CTL_DEL, options.listen_fd, nullptr);
    listen_registered = false;
    return;
  }
  epoll_event event{};
  event.events = EPOLLIN | EPOLLEXCLUSIVE;
  event.data.ptr = &listen_tag;
  if (::epoll_ctl(epoll_fd, EPOLL_CTL_ADD, options.listen_fd, &event) == 0) listen_registered = true;
  else log::warn("epoll_ctl on the FastCGI socket: " + errno_text(errno));
}

bool EventLoop::Impl::peer_allowed(int fd) const {
  if (options.web_server_addrs.empty()) return true;
  const std::string peer = peer_address(fd);
  if (peer.empty()) return true;  // a unix socket: its file mode decides
  return std::any_of(options.web_server_addrs.begin(), options.web_server_addrs.end(),
                     [&](const std::string& allowed) { return canonical_address(allowed) == peer; });
}

// Takes the connections waiting on the socket (all of them when draining).
void EventLoop::Impl::accept_connections(bool drain) {
  const int batch = drain ? kDrainBatch : kAcceptBatch;
  for (int i = 0; i < batch; ++i) {
    // The limit told to the web server (FCGI_MAX_CONNS) is kept: at it,
    // new connections wait in the kernel's backlog until one closes.
    // (A stop drains past it: those already queued are answered.)
    if (!drain && open_count >= connection_cap()) {
      if (!at_capacity) log::warn("at max_connections (" + std::to_string(limits.max_connections) + "): new connections wait");
      at_capacity = true;
      set_listen_interest(false);
      return;
    }
    const int fd = ::accept4(options.listen_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return;
      // Out of descriptors or memory: give the kernel's queue a rest
      // instead of spinning on a socket that stays readable.
      log::warn("accept failed: " + errno_text(errno) + "; pausing new connections briefly");
      accept_paused = true;
      accept_paused_until = Clock::now() + kAcceptPause;
      set_listen_interest(false);
      return;
    }
    if (!unix_socket) {
      const int on = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
      if (!peer_allowed(fd)) {
        ::close(fd);
        continue;
      }
    }
    Connection& c = open_connection(fd);
    // The web server writes its request as soon as it has connected, most
    // often before the connection is accepted: read it now, and register the
    // connection with epoll only if there is nothing yet (or more to wait for).
    on_event(c, EPOLLIN);
  }
}

}  // namespace authd
