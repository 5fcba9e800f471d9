// The socket authd accepts FastCGI connections on.
#pragma once

#include <string_view>

#include "authd/error.hpp"

namespace authd {

// `spec` as --listen takes it:
//   ""           fd 0, as the web server or spawn-fcgi hands it over (must be a socket);
//   ":PORT"      TCP on the loopback address only: a bare port must not open
//                authd to anyone who can reach the host and bypass the web server;
//   "HOST:PORT"  TCP on that address ("0.0.0.0:PORT" asks for every interface);
//   "PATH"       a Unix socket (an old socket file there is replaced).
// Error io naming the reason.
Result<int> open_listen_socket(std::string_view spec);

}  // namespace authd
