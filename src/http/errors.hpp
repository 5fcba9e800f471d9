// An Error as a Response: logs what needs logging, and takes status, headers
// and body from authd::to_http (lib/guard/http_errors.cpp), the one mapping.
#pragma once

#include "authd/error.hpp"
#include "http/response.hpp"

namespace authd::http {

// Status, body and headers for `error`. Internal errors are logged here with
// their detail; the client sees only a generic message.
Response error_response(const Error& error);

}  // namespace authd::http
