// GET /openapi.json: the OpenAPI 3.1 description of every route
// (docs/openapi.yaml, turned into JSON when authd is built).
#include "api/operations/routes.hpp"

namespace authd::handlers {

extern const std::string_view kOpenApiDocument;

HandlerResult openapi_document(App&, const http::Request&, const RouteContext&) {
  auto response = http::Response::json_text(200, std::string(kOpenApiDocument));
  response.header("Cache-Control", "public, max-age=300");
  return response;
}

}  // namespace authd::handlers
