#include "serving/systemd_daemon.hpp"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <charconv>
#include <cstdlib>
#include <cstring>
#include <string>

namespace authd::systemd {
namespace {

constexpr int kFirstListenFd = 3;  // SD_LISTEN_FDS_START

template <class Number>
std::optional<Number> env_number(const char* name) {
  const char* text = std::getenv(name);
  if (!text || !*text) return std::nullopt;
  Number value{};
  const auto end = text + std::strlen(text);
  const auto [rest, error] = std::from_chars(text, end, value);
  if (error != std::errc() || rest != end) return std::nullopt;
  return value;
}

bool for_this_process(const char* pid_variable) {
  const auto pid = env_number<long>(pid_variable);
  return pid && *pid == static_cast<long>(::getpid());
}

}  // namespace

std::optional<int> listen_fd() {
  const bool ours = for_this_process("LISTEN_PID");
  const auto count = env_number<int>("LISTEN_FDS");
  ::unsetenv("LISTEN_PID");
  ::unsetenv("LISTEN_FDS");
  ::unsetenv("LISTEN_FDNAMES");
  if (!ours || !count || *count < 1) return std::nullopt;
  struct stat info{};
  if (::fstat(kFirstListenFd, &info) != 0 || !S_ISSOCK(info.st_mode)) return std::nullopt;
  const int flags = ::fcntl(kFirstListenFd, F_GETFD);
  if (flags >= 0) ::fcntl(kFirstListenFd, F_SETFD, flags | FD_CLOEXEC);
  return kFirstListenFd;
}

bool notify(std::string_view state) {
  const char* path = std::getenv("NOTIFY_SOCKET");
  if (!path || (path[0] != '/' && path[0] != '@')) return false;
  sockaddr_un address{};
  const std::size_t length = std::strlen(path);
  if (length >= sizeof address.sun_path) return false;
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, path, length);
  if (address.sun_path[0] == '@') address.sun_path[0] = '\0';  // abstract namespace
  const int fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  const auto size = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + length);
  const ssize_t sent = ::sendto(fd, state.data(), state.size(), MSG_NOSIGNAL, reinterpret_cast<const sockaddr*>(&address), size);
  ::close(fd);
  return sent == static_cast<ssize_t>(state.size());
}

std::optional<std::chrono::microseconds> watchdog_interval() {
  const auto usec = env_number<long long>("WATCHDOG_USEC");
  if (!usec || *usec <= 0) return std::nullopt;
  if (std::getenv("WATCHDOG_PID") && !for_this_process("WATCHDOG_PID")) return std::nullopt;
  return std::chrono::microseconds(*usec / 2);
}

}  // namespace authd::systemd
