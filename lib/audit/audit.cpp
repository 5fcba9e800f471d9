#include "authd/audit.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>

#include "authd/clock.hpp"
#include "authd/json.hpp"

namespace authd {

std::vector<settings::Setting> audit_settings(AuditSettings& s) {
  return settings::grouped("Operations", {settings::text(
      "audit_log", s.log,
      "The audit log: one JSON object a line {time, event, username, client, request_id, outcome, reason[, actor]}, "
      "never a password, token, cookie or secret (docs/operations.md). A file path (opened O_APPEND, created 0600; "
      "each line is one write(2), so rotate it with logrotate's copytruncate), `-` for stderr, empty for none.")});
}

std::string rfc3339_utc(std::int64_t unix_seconds) {
  const std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm parts{};
  ::gmtime_r(&t, &parts);
  char text[32];
  const auto n = std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &parts);
  return std::string(text, n);
}

std::string audit_line(const AuditEvent& e, std::int64_t now) {
  Json line = Json::object();
  line.set("time", Json::string(rfc3339_utc(now)))
      .set("event", Json::string(e.event))
      .set("username", Json::string(e.username))
      .set("client", Json::string(e.client))
      .set("request_id", Json::string(e.request_id))
      .set("outcome", Json::string(e.outcome))
      .set("reason", Json::string(e.reason));
  if (!e.actor.empty()) line.set("actor", Json::string(e.actor));
  std::string out = line.dump();  // jansson escapes control characters: the line stays one line
  out.push_back('\n');
  return out;
}

Result<std::unique_ptr<AuditLog>> AuditLog::open(const std::string& target) {
  std::unique_ptr<AuditLog> log(new AuditLog(target));
  if (target.empty()) return log;
  if (target == "-") {
    log->fd_ = STDERR_FILENO;
    return log;
  }
  if (auto ok = log->reopen(); !ok) return std::unexpected(ok.error());
  return log;
}

Result<void> AuditLog::reopen() {
  if (target_.empty() || target_ == "-") return {};
  // Appended to in place (many writers); a symlink at the name is refused
  // (ELOOP), never followed: authctl may run as root over a log directory
  // the service's user can write.
  const int fd = ::open(target_.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return fail(Errc::io, "cannot open audit_log " + target_ + ": " + std::strerror(errno));
  const int old = fd_.exchange(fd);
  if (owns_fd_ && old >= 0) ::close(old);
  owns_fd_ = true;
  return {};
}

AuditLog::~AuditLog() {
  if (owns_fd_ && fd_ >= 0) ::close(fd_);
}

void AuditLog::record(const AuditEvent& event) const noexcept {
  const int fd = fd_.load(std::memory_order_relaxed);
  if (fd < 0) return;
  try {
    const std::string line = audit_line(event, unix_now());
    // One write(2) of the whole line with O_APPEND: atomic with respect to
    // other appenders for a regular file (lines are far below any limit).
    const auto written = ::write(fd, line.data(), line.size());
    if (written != static_cast<ssize_t>(line.size())) failures_.fetch_add(1);
  } catch (...) {
    failures_.fetch_add(1);
  }
}

}  // namespace authd
