#include "http/response.hpp"

#include <charconv>
#include <cstring>

#include "http/append_in_place.hpp"

namespace authd::http {

Response Response::json(int status, const Json& body) { return json_text(status, body.dump()); }

Response Response::json_text(int status, std::string body) {
  Response response;
  response.status = status;
  response.headers.reserve(4);  // room for what the router adds (X-Request-Id, ...): one allocation
  response.header("Content-Type", "application/json");
  response.body = std::move(body);
  return response;
}

std::string_view reason_phrase(int status) noexcept {
  switch (status) {
    case 200: return "OK";
    case 201: return "Created";
    case 204: return "No Content";
    case 302: return "Found";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 413: return "Payload Too Large";
    case 415: return "Unsupported Media Type";
    case 429: return "Too Many Requests";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    case 507: return "Insufficient Storage";
    default: return "Unknown";
  }
}

void serialize_into(std::string& out, const Response& response) {
  // Measured first, then written in one go: every answer passes here.
  char status[12];
  const std::string_view status_code(status, std::to_chars(status, status + sizeof status, response.status).ptr);
  char length[24];
  const std::string_view body_length(length, std::to_chars(length, length + sizeof length, response.body.size()).ptr);
  const std::string_view reason = reason_phrase(response.status);
  constexpr std::string_view kStatus = "Status: ", kSeparator = ": ", kEnd = "\r\n", kLength = "Content-Length: ";
  std::size_t size = kStatus.size() + status_code.size() + 1 + reason.size() + kEnd.size();
  for (const auto& [name, value] : response.headers) size += name.size() + kSeparator.size() + value.size() + kEnd.size();
  size += kLength.size() + body_length.size() + 2 * kEnd.size() + response.body.size();
  append_in_place(out, size, [&](char* to) {
    const auto put = [&to](std::string_view text) {
      if (text.empty()) return;  // memcpy is not given a null pointer, even for nothing
      std::memcpy(to, text.data(), text.size());
      to += text.size();
    };
    put(kStatus);
    put(status_code);
    put(" ");
    put(reason);
    put(kEnd);
    for (const auto& [name, value] : response.headers) {
      put(name);
      put(kSeparator);
      put(value);
      put(kEnd);
    }
    put(kLength);
    put(body_length);
    put(kEnd);
    put(kEnd);
    put(response.body);
  });
}

std::string serialize(const Response& response) {
  std::string out;
  serialize_into(out, response);
  return out;
}

}  // namespace authd::http
