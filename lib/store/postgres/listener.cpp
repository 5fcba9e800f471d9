#include "listener.hpp"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <optional>

namespace authd::pg {
namespace {

constexpr auto kHeartbeatEvery = std::chrono::milliseconds(1000);
constexpr auto kHeartbeatAnswerWithin = std::chrono::milliseconds(1000);
constexpr auto kFirstBackoff = std::chrono::milliseconds(100);
constexpr auto kMaxBackoff = std::chrono::milliseconds(2000);

}  // namespace

Listener::Listener(Connection::Settings settings, OnNotify on_notify, std::function<void(bool)> on_live, Log warn,
                   Log info, std::function<void()> on_listening)
    : settings_(std::move(settings)), on_notify_(std::move(on_notify)), on_live_(std::move(on_live)),
      warn_(std::move(warn)), info_(std::move(info)),
      on_listening_(std::move(on_listening)) {
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  thread_ = std::thread([this] { run(); });
}

Listener::~Listener() {
  stop_.store(true);
  if (wake_fd_ >= 0) {
    const std::uint64_t one = 1;
    (void)!::write(wake_fd_, &one, sizeof one);
  }
  if (thread_.joinable()) thread_.join();
  if (wake_fd_ >= 0) ::close(wake_fd_);
}

bool Listener::pause(std::chrono::milliseconds time) {
  pollfd fd{wake_fd_, POLLIN, 0};
  (void)::poll(&fd, 1, static_cast<int>(time.count()));
  return !stop_.load();
}

void Listener::run() {
  auto backoff = kFirstBackoff;
  bool reported_down = false;
  while (!stop_.load()) {
    auto conn = Connection::open(settings_);
    if (conn) {
      const auto deadline = Clock::now() + settings_.statement_timeout;
      if (auto listening = conn->exec_script("LISTEN authd_users; LISTEN authd_records", deadline); !listening) {
        conn = std::unexpected(listening.error());
      }
    }
    if (!conn) {
      if (!reported_down && warn_) warn_("postgresql: caches off, cannot LISTEN: " + conn.error().message);
      reported_down = true;
      if (!pause(backoff)) break;
      backoff = std::min(backoff * 2, kMaxBackoff);
      continue;
    }
    backoff = kFirstBackoff;
    if (reported_down && info_) info_("postgresql: listening again, caches on");
    reported_down = false;
    on_live_(true);
    if (on_listening_) on_listening_();
    listen_on(*conn);
    on_live_(false);
    if (!stop_.load()) {
      if (warn_) warn_("postgresql: LISTEN connection lost, caches off until it is back");
      reported_down = true;
    }
  }
}

// Returns when the connection is lost or the listener stops.
void Listener::listen_on(Connection& conn) {
  PGconn* raw = conn.raw();
  auto last_heard = Clock::now();
  std::optional<Clock::time_point> heartbeat_sent;
  while (!stop_.load()) {
    std::array<pollfd, 2> fds{pollfd{PQsocket(raw), POLLIN, 0}, pollfd{wake_fd_, POLLIN, 0}};
    const int rc = ::poll(fds.data(), fds.size(), 250);
    if (rc < 0 && errno != EINTR) return;
    if (stop_.load()) return;
    if (fds[0].revents != 0) {
      if (!PQconsumeInput(raw) || PQstatus(raw) != CONNECTION_OK) return;
      last_heard = Clock::now();
      while (NotifyPtr note{PQnotifies(raw)}) {
        on_notify_(note->relname ? note->relname : "", note->extra ? note->extra : "");
      }
      while (heartbeat_sent && !PQisBusy(raw)) {
        ResultPtr result(PQgetResult(raw));
        if (!result) heartbeat_sent.reset();  // the answer is complete
      }
    }
    const auto now = Clock::now();
    if (heartbeat_sent) {
      if (now - *heartbeat_sent > kHeartbeatAnswerWithin) return;  // silent connection: assume it is gone
    } else if (now - last_heard > kHeartbeatEvery) {
      if (!PQsendQuery(raw, "SELECT 1")) return;
      if (PQflush(raw) < 0) return;
      heartbeat_sent = now;
    }
  }
}

}  // namespace authd::pg
