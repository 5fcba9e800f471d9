#include "api/json_body.hpp"

#include "http/cross_site.hpp"

namespace authd::handlers {

Result<Json> parse_json_body(const App& app, const http::Request& request) {
  // The route table checks this first (api/access_policy.cpp, admit()); here
  // again so that a handler that parses a body its row forgot to declare
  // cannot take a cross-site form or text/plain (login CSRF).
  if (auto json = http::require_json_body(request); !json) return std::unexpected(json.error());
  if (request.body.empty()) return fail(Errc::invalid_input, "request body must be a JSON object");
  return Json::parse(request.body, app.server.max_json_depth);
}

Result<Json> optional_json_body(const App& app, const http::Request& request) {
  if (request.body.empty()) return Json::object();
  return parse_json_body(app, request);
}

Result<std::string> required_field(const Json& body, std::string_view field) {
  if (!body.is_object()) return fail(Errc::invalid_input, "request body must be a JSON object");
  if (!body.has(field)) return fail_field(std::string(field), std::string(field) + " is required");
  const auto value = body.get_string(field);
  if (!value) return fail_field(std::string(field), std::string(field) + " must be a string");
  return std::string(*value);
}

}  // namespace authd::handlers
