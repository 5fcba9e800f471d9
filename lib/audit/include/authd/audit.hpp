// The audit log: who did what, when, from where, and how it ended. One JSON
// object a line:
//   {"time":"2026-11-23T13:05:01Z","event":"signin","username":"alice",
//    "client":"127.0.0.1","request_id":"9f2c...","outcome":"ok","reason":""}
// (plus "actor" when an administrator or operator acted on another user).
//
// Never put a password, token, cookie, authorization code or secret in any
// field: `reason` is a short fixed phrase ("wrong password or unknown user",
// "role user -> editor"), not input echoed back.
//
// Writing: every line is ONE write(2) on a descriptor opened with O_APPEND,
// so lines from many threads and many processes (authd workers, authctl)
// never interleave, and logrotate's `copytruncate` is safe (the next write
// lands at the new end of the truncated file). `reopen()` re-opens the
// path (after a rename-style rotation); authd keeps SIGHUP as "stop", so
// use copytruncate.
//
// Recording a new event from a feature is one line:
//   core.audit().record({.event = "password_changed", .username = user.username,
//                        .client = address, .request_id = id, .outcome = "ok"});
// (in src/, handlers::audit(app, request, {...}) fills client and request_id).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "authd/error.hpp"
#include "authd/settings.hpp"

namespace authd {

struct AuditEvent {
  std::string event{};       // signup, signin, signin_failed, oauth_signin, oauth_failed, denied, throttled,
                           // role_changed, user_created, user_deleted, signout, password_changed, key_rotated, ...
  std::string username{};    // the account concerned, when known
  std::string client{};      // the client's address (REMOTE_ADDR), or "local" for authctl
  std::string request_id{};  // the X-Request-Id of the request ("" for authctl)
  std::string outcome{};     // ok, refused, failed
  std::string reason{};      // short fixed phrase; never a secret
  std::string actor{};       // who made the change when not `username` (admin's name, "authctl:<user>")
};

struct AuditSettings {
  std::string log;  // audit_log: a file path, "-" for stderr, "" (default) for none
};

// audit_log.
std::vector<settings::Setting> audit_settings(AuditSettings& settings);

// The JSON line (with '\n') for `event` at Unix time `now`.
std::string audit_line(const AuditEvent& event, std::int64_t now);

// "2026-11-23T13:05:01Z".
std::string rfc3339_utc(std::int64_t unix_seconds);

class AuditLog {
 public:
  // Opens `target` (see AuditSettings) for appending, creating it 0600.
  // Error: io.
  static Result<std::unique_ptr<AuditLog>> open(const std::string& target);
  ~AuditLog();
  AuditLog(const AuditLog&) = delete;
  AuditLog& operator=(const AuditLog&) = delete;

  bool enabled() const noexcept { return fd_.load(std::memory_order_relaxed) >= 0; }
  // Writes one line now (time = the clock). Never throws; a failed write is
  // counted in write_failures() and otherwise ignored: the request goes on.
  void record(const AuditEvent& event) const noexcept;
  // Opens the path again (after the file was moved away). Error: io.
  Result<void> reopen();
  std::uint64_t write_failures() const noexcept { return failures_.load(); }

 private:
  explicit AuditLog(std::string target) : target_(std::move(target)) {}
  std::string target_;
  std::atomic<int> fd_{-1};
  bool owns_fd_ = false;
  mutable std::atomic<std::uint64_t> failures_{0};
};

}  // namespace authd
