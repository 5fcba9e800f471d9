// Reading a JSON request body, for the handlers of every group.
#pragma once

#include <string>
#include <string_view>

#include "authd/json.hpp"
#include "http/request.hpp"
#include "program/app.hpp"

namespace authd::handlers {

// The request body as a JSON value, within the configured depth.
Result<Json> parse_json_body(const App& app, const http::Request& request);

// The JSON body, or an empty object when the request has none.
Result<Json> optional_json_body(const App& app, const http::Request& request);

// A string member of a JSON body. Error: invalid_input naming the field.
Result<std::string> required_field(const Json& body, std::string_view field);

}  // namespace authd::handlers
