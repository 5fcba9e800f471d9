// The only module that touches libfcgi's request API.
#pragma once

#include <fcgiapp.h>

#include <cstddef>

#include "authd/error.hpp"
#include "http/request.hpp"
#include "http/response.hpp"

namespace authd::http {

// Reads method, path, parameters and the body (at most max_body bytes;
// Error payload_too_large beyond, without reading it).
Result<Request> read_request(FCGX_Request& fcgi, std::size_t max_body);

// Writes the CGI header block and body to the FastCGI output stream.
void write_response(FCGX_Request& fcgi, const Response& response);

}  // namespace authd::http
