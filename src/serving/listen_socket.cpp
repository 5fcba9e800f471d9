#include "serving/listen_socket.hpp"

#include <netdb.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string>

namespace authd {
namespace {

constexpr int kBacklog = 128;

Result<int> listen_on(int fd, const sockaddr* address, socklen_t length, const std::string& what) {
  if (::bind(fd, address, length) != 0 || ::listen(fd, kBacklog) != 0) {
    const int error = errno;
    ::close(fd);
    return fail(Errc::io, "cannot listen on " + what + ": " + std::strerror(error));
  }
  return fd;
}

Result<int> tcp_socket(std::string host, std::string_view port) {
  if (host.empty()) host = "127.0.0.1";
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string port_text(port);
  if (const int rc = ::getaddrinfo(host.c_str(), port_text.c_str(), &hints, &found); rc != 0) {
    return fail(Errc::io, "cannot listen on " + host + ":" + port_text + ": " + ::gai_strerror(rc));
  }
  std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> owner(found, &::freeaddrinfo);
  const int fd = ::socket(found->ai_family, found->ai_socktype | SOCK_CLOEXEC, 0);
  if (fd < 0) return fail(Errc::io, std::string("socket: ") + std::strerror(errno));
  const int on = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  return listen_on(fd, found->ai_addr, found->ai_addrlen, host + ":" + port_text);
}

Result<int> unix_socket(const std::string& path) {
  sockaddr_un address{};
  if (path.size() >= sizeof address.sun_path) return fail(Errc::io, "socket path too long: " + path);
  struct stat info{};
  if (::lstat(path.c_str(), &info) == 0) {
    if (!S_ISSOCK(info.st_mode)) return fail(Errc::io, path + " exists and is not a socket");
    ::unlink(path.c_str());  // left by an earlier run
  }
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, path.data(), path.size());
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return fail(Errc::io, std::string("socket: ") + std::strerror(errno));
  return listen_on(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address, path);
}

}  // namespace

Result<int> open_listen_socket(std::string_view spec) {
  if (spec.empty()) {
    struct stat info{};
    if (::fstat(0, &info) != 0 || !S_ISSOCK(info.st_mode)) {
      return fail(Errc::io, "fd 0 is not a socket: run under a web server or spawn-fcgi "
                            "(spawn-fcgi -s SOCKET -- authd), or pass --listen PATH|:PORT");
    }
    return 0;
  }
  const auto colon = spec.rfind(':');
  if (spec.find('/') == std::string_view::npos && colon != std::string_view::npos) {
    const auto port = spec.substr(colon + 1);
    if (port.empty() || port.find_first_not_of("0123456789") != std::string_view::npos) {
      return fail(Errc::io, "--listen " + std::string(spec) + ": expected PATH, :PORT or HOST:PORT");
    }
    return tcp_socket(std::string(spec.substr(0, colon)), port);
  }
  return unix_socket(std::string(spec));
}

}  // namespace authd
