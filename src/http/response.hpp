#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "authd/json.hpp"

namespace authd::http {

struct Response {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  // Sent no earlier than this (equal-time answers): the server holds it
  // without holding a thread (DelayedAnswers); CGI mode sleeps until then.
  std::optional<std::chrono::steady_clock::time_point> not_before;

  Response& header(std::string name, std::string value) {
    headers.emplace_back(std::move(name), std::move(value));
    return *this;
  }

  // application/json response with `body` dumped compactly.
  static Response json(int status, const Json& body);
  // application/json response whose body is already JSON text.
  static Response json_text(int status, std::string body);
};

std::string_view reason_phrase(int status) noexcept;

// The wire form for a FastCGI responder: "Status: ..." CGI header block + body.
std::string serialize(const Response& response);
// The same, appended to `out` (a buffer kept between requests: no allocation).
void serialize_into(std::string& out, const Response& response);

}  // namespace authd::http
