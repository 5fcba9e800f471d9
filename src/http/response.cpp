#include "http/response.hpp"

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
  out.reserve(out.size() + 256 + response.body.size());
  out += "Status: ";
  out += std::to_string(response.status);
  out += ' ';
  out += reason_phrase(response.status);
  out += "\r\n";
  for (const auto& [name, value] : response.headers) {
    out += name;
    out += ": ";
    out += value;
    out += "\r\n";
  }
  out += "Content-Length: ";
  out += std::to_string(response.body.size());
  out += "\r\n\r\n";
  out += response.body;
}

std::string serialize(const Response& response) {
  std::string out;
  serialize_into(out, response);
  return out;
}

}  // namespace authd::http
