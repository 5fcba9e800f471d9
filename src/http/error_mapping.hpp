// The one mapping from an authd::Error to an HTTP answer: status, headers
// and JSON body. Free of FastCGI, so other servers that link the core use it
// too (installed as libauthd_http.a with <authd/http/error_mapping.hpp>).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "authd/error.hpp"

namespace authd::http {

struct ErrorAnswer {
  int status = 500;
  std::vector<std::pair<std::string, std::string>> headers;  // besides Content-Type: application/json
  std::string body;                                         // JSON
};

// Kinds whose message is safe to show carry it in the body; others show a
// fixed text. Typed fields become headers (Retry-After, Allow).
ErrorAnswer to_http(const Error& error);

}  // namespace authd::http
