// The demo resource that shows the guard: /records and /records/{id}.
// The route table (routes.hpp) says which capability each method needs.
#include "api/json_body.hpp"
#include "api/records/routes.hpp"

namespace authd::handlers {

// Reads answer with the stored JSON text as it is: no parse, no re-encode.
HandlerResult list_records(App& app, const http::Request&, const RouteContext&) {
  auto records = app.core->records().list_text();
  if (!records) return std::unexpected(records.error());
  return http::Response::json_text(200, std::move(*records));
}

HandlerResult get_record(App& app, const http::Request&, const RouteContext& context) {
  auto record = app.core->records().find_text(context.id);
  if (!record) return std::unexpected(record.error());
  return http::Response::json_text(200, std::move(*record));
}

HandlerResult create_record(App& app, const http::Request& request, const RouteContext& context) {
  auto body = parse_json_body(app, request);
  if (!body) return std::unexpected(body.error());
  auto record = app.core->records().create(context.principal->user().username, *body);
  if (!record) return std::unexpected(record.error());
  auto response = http::Response::json(201, *record);
  response.header("Location", request.base_path + "/records/" + std::string(record->get_string("_id").value_or("")));
  return response;
}

HandlerResult update_record(App& app, const http::Request& request, const RouteContext& context) {
  auto body = parse_json_body(app, request);
  if (!body) return std::unexpected(body.error());
  auto record = app.core->records().replace(context.id, *body);
  if (!record) return std::unexpected(record.error());
  return http::Response::json(200, *record);
}

HandlerResult delete_record(App& app, const http::Request&, const RouteContext& context) {
  if (auto removed = app.core->records().remove(context.id); !removed) return std::unexpected(removed.error());
  Json body = Json::object();
  body.set("_id", Json::string(context.id)).set("deleted", Json::boolean(true));
  return http::Response::json(200, body);
}

}  // namespace authd::handlers
