// The two systemd protocols authd speaks, written out (a few lines each) so
// that no build, the shared-hosting one included, links libsystemd:
//   socket activation (sd_listen_fds(3)): LISTEN_PID = our pid and
//     LISTEN_FDS >= 1 hand over the socket of authd.socket as fd 3;
//   readiness and watchdog (sd_notify(3)): datagrams such as "READY=1" to the
//     AF_UNIX socket NOTIFY_SOCKET names ('@' = abstract namespace).
// Started any other way (spawn-fcgi, --listen, a terminal), all of it is a no-op.
#pragma once

#include <chrono>
#include <optional>
#include <string_view>

namespace authd::systemd {

// The socket systemd passed (fd 3, made close-on-exec), or nullopt when
// LISTEN_PID/LISTEN_FDS are absent or meant for another process. Unsets the
// LISTEN_* variables either way, as sd_listen_fds(1) does.
std::optional<int> listen_fd();

// Sends `state` ("READY=1", "RELOADING=1", "STOPPING=1", "WATCHDOG=1",
// "STATUS=...") to NOTIFY_SOCKET; false when there is none or sending failed.
bool notify(std::string_view state);

// Half of WATCHDOG_USEC (how often to send WATCHDOG=1) when the watchdog is
// on for this process (WATCHDOG_PID absent or ours), else nullopt.
std::optional<std::chrono::microseconds> watchdog_interval();

}  // namespace authd::systemd
