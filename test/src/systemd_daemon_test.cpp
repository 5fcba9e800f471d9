// The sd_listen_fds and sd_notify protocols as authd speaks them without
// libsystemd (src/systemd_daemon.*): a datagram listener stands in for
// systemd's notification socket (a real AF_UNIX socket, as systemd's).
#include "serving/systemd_daemon.hpp"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

namespace {

using namespace authd;

class NotifySocket {
 public:
  NotifySocket() {
    path_ = "/tmp/authd-notify-test-" + std::to_string(::getpid()) + ".sock";
    ::unlink(path_.c_str());
    fd_ = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::memcpy(address.sun_path, path_.data(), path_.size());
    EXPECT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
    timeval timeout{.tv_sec = 2, .tv_usec = 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  }
  ~NotifySocket() {
    ::close(fd_);
    ::unlink(path_.c_str());
  }
  const std::string& path() const { return path_; }
  std::string receive() {
    char buffer[512];
    const ssize_t got = ::recv(fd_, buffer, sizeof buffer, 0);
    return got > 0 ? std::string(buffer, static_cast<std::size_t>(got)) : std::string();
  }

 private:
  std::string path_;
  int fd_ = -1;
};

TEST(SystemdDaemon, NotifySendsTheStateToNotifySocket) {
  NotifySocket systemd;
  ::setenv("NOTIFY_SOCKET", systemd.path().c_str(), 1);
  EXPECT_TRUE(systemd::notify("READY=1\nSTATUS=serving"));
  EXPECT_EQ(systemd.receive(), "READY=1\nSTATUS=serving");
  ::unsetenv("NOTIFY_SOCKET");
}

TEST(SystemdDaemon, NotifyWithoutSystemdIsANoOp) {
  ::unsetenv("NOTIFY_SOCKET");
  EXPECT_FALSE(systemd::notify("READY=1"));
  ::setenv("NOTIFY_SOCKET", "relative/path", 1);
  EXPECT_FALSE(systemd::notify("READY=1"));
  ::unsetenv("NOTIFY_SOCKET");
}

TEST(SystemdDaemon, WatchdogIntervalIsHalfOfWatchdogUsecForThisProcess) {
  ::setenv("WATCHDOG_USEC", "30000000", 1);
  ::unsetenv("WATCHDOG_PID");
  ASSERT_TRUE(systemd::watchdog_interval());
  EXPECT_EQ(*systemd::watchdog_interval(), std::chrono::seconds(15));
  ::setenv("WATCHDOG_PID", std::to_string(::getpid() + 1).c_str(), 1);
  EXPECT_FALSE(systemd::watchdog_interval());
  ::setenv("WATCHDOG_PID", std::to_string(::getpid()).c_str(), 1);
  EXPECT_TRUE(systemd::watchdog_interval());
  ::unsetenv("WATCHDOG_USEC");
  ::unsetenv("WATCHDOG_PID");
  EXPECT_FALSE(systemd::watchdog_interval());
}

TEST(SystemdDaemon, ListenFdsOnlyForThisProcessAndConsumed) {
  int pair[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, pair), 0);
  const int saved = ::dup(3);  // fd 3 may be in use by the test runner
  ASSERT_EQ(::dup2(pair[0], 3), 3);
  ::setenv("LISTEN_FDS", "1", 1);
  ::setenv("LISTEN_PID", std::to_string(::getpid() + 1).c_str(), 1);
  EXPECT_FALSE(systemd::listen_fd()) << "LISTEN_PID of another process";
  EXPECT_EQ(std::getenv("LISTEN_FDS"), nullptr) << "consumed either way";
  ::setenv("LISTEN_FDS", "1", 1);
  ::setenv("LISTEN_PID", std::to_string(::getpid()).c_str(), 1);
  EXPECT_EQ(systemd::listen_fd(), 3);
  EXPECT_EQ(std::getenv("LISTEN_PID"), nullptr);
  EXPECT_FALSE(systemd::listen_fd()) << "only once";
  if (saved >= 0) {
    ::dup2(saved, 3);
    ::close(saved);
  } else {
    ::close(3);
  }
  ::close(pair[0]);
  ::close(pair[1]);
}

}  // namespace
