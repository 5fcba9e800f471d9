// An Error as a Response: logs what needs logging, then takes status,
// headers and body from to_http (http/error_mapping.cpp), the one mapping.
#pragma once

#include "authd/error.hpp"
#include "http/response.hpp"

namespace authd::http {

// Internal errors are logged here with their detail; the client sees only a
// generic message.
Response error_response(const Error& error);

// The same for answers that never reached a route (an unreadable request, a
// full lane, a stopping server): they get a fresh X-Request-Id here; routed
// answers carry theirs from prepare() (api/router.cpp).
Response unrouted_error_response(const Error& error);

}  // namespace authd::http
