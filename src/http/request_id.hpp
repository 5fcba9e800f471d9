// The X-Request-Id of a request that brings none: 16 hex digits, unique in
// this process (and, seeded from the system's random source, across processes
// and restarts with overwhelming likelihood). Not a secret: it names a request
// in the logs and in the answer, so it costs a counter step, not a call into
// the random generator per request.
#pragma once

#include <string>

namespace authd::http {

std::string new_request_id();

}  // namespace authd::http
