// Local callers over TCP. A web server that can only reach authd over TCP
// (Apache's mod_authnz_fcgi) leaves a loopback port that every local user can
// connect to and send FastCGI with a REMOTE_ADDR of their choosing: past the
// per-address limits, metrics_allow and the trusted-proxy check. On a TCP
// listener authd therefore needs the setting front_secret, and serves only
// requests whose FastCGI parameter AUTHD_FRONT_SECRET equals it (compared in
// constant time); the others get 403 and never reach a route. A unix socket
// (every other shipped configuration) is guarded by its file mode instead.
#pragma once

#include <string>

#include "serving/lane.hpp"

namespace authd {

inline constexpr const char* kFrontSecretParam = "AUTHD_FRONT_SECRET";

// True when `fd` is an IPv4 or IPv6 socket (not a unix socket).
bool is_tcp_socket(int fd);

// `prepare`, for requests that carry the front secret; 403 for the others.
Prepare require_front_secret(std::string secret, Prepare prepare);

}  // namespace authd
