#include "api/audit_request.hpp"

namespace authd::handlers {

void audit(const App& app, const http::Request& request, AuditEvent event) {
  if (!app.core->audit().enabled()) return;
  if (event.client.empty()) event.client = request.remote_addr;
  if (event.request_id.empty()) event.request_id = request.request_id;
  app.core->audit().record(event);
}

}  // namespace authd::handlers
