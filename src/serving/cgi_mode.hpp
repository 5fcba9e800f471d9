// authd as a plain CGI program, for a shared host that has mod_cgi but no
// mod_fcgid: the web server starts the program for each request, with the
// request in the environment (RFC 3875) and the body on stdin. The same
// binary, the same routes, guard and error mapping as under FastCGI; only
// the transport differs. Each request then pays for a process start, the
// LMDB open and the signing-key load (see README, "Shared hosting").
#pragma once

#include "program/app.hpp"

namespace authd {

// True when a web server started this process as a CGI program:
// GATEWAY_INTERFACE is "CGI/..." and fd 0 is not a FastCGI listening socket.
bool started_as_cgi();

// Reads the one request (environment + stdin), answers it through
// prepare_mounted (http/base_path.hpp) and writes the CGI response to stdout.
// Returns the exit status: 0 once an answer was written, 1 if stdout failed.
int serve_cgi_request(App& app);

}  // namespace authd
