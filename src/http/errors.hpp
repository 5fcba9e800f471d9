// The one place where an Error becomes an HTTP status and body.
#pragma once

#include "authd/error.hpp"
#include "http/response.hpp"

namespace authd::http {

// Status, body and headers for `error`. Internal errors are logged here with
// their detail; the client sees only a generic message.
Response error_response(const Error& error);

}  // namespace authd::http
