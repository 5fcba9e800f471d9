#include "api/audit_request.hpp"

#include "authd/store.hpp"

namespace authd::handlers {

void audit(const App& app, const http::Request& request, AuditEvent event) {
  if (!app.core->audit().enabled()) return;
  // A read tried from the store's memory that the store refused runs again
  // on a store thread (api/router.cpp), which writes its line.
  if (MemoryOnly::refused_here()) return;
  if (event.client.empty()) event.client = request.remote_addr;
  if (event.request_id.empty()) event.request_id = request.request_id;
  app.core->audit().record(event);
}

}  // namespace authd::handlers
