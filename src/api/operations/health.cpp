// GET /healthz: the process answers. GET /readyz: the store answers a read
// and the signing key is loaded (a Core cannot exist without it). No
// credentials; nothing is logged for them at info level. GET /metrics: the
// Prometheus exposition, to metrics_allow addresses only (others: 404, as if
// the route did not exist).
#include "api/operations/routes.hpp"
#include "serving/metrics.hpp"

namespace authd::handlers {

HandlerResult healthz(App&, const http::Request&, const RouteContext&) {
  Json body = Json::object();
  body.set("status", Json::string("ok"));
  auto response = http::Response::json(200, body);
  response.header("Cache-Control", "no-store");
  return response;
}

HandlerResult readyz(App& app, const http::Request&, const RouteContext&) {
  Store& store = app.core->store();
  auto stats = store.stats();
  Json body = Json::object();
  body.set("status", Json::string(stats ? "ready" : "unavailable"))
      .set("store", Json::string(stats ? "ok" : "unavailable"))
      .set("backend", Json::string(store.name()))
      .set("signing_key", Json::string("loaded"));
  auto response = http::Response::json(stats ? 200 : 503, body);
  response.header("Cache-Control", "no-store");
  if (!stats) response.header("Retry-After", "5");
  return response;
}

HandlerResult metrics_text(App& app, const http::Request& request, const RouteContext&) {
  if (!app.server.metrics_allow.contains(request.remote_addr)) {
    return fail(Errc::not_found, "metrics are not offered to " + request.remote_addr);
  }
  http::Response response;
  response.status = 200;
  response.body = metrics::render(app);
  response.header("Content-Type", "text/plain; version=0.0.4; charset=utf-8").header("Cache-Control", "no-store");
  return response;
}

}  // namespace authd::handlers
