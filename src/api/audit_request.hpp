// Audit lines of a request, for the handlers of every group and the router.
#pragma once

#include "authd/audit.hpp"
#include "http/request.hpp"
#include "program/app.hpp"

namespace authd::handlers {

// Records `event` in the audit log with the request's client address and
// X-Request-Id filled in. One line per event, e.g.
//   audit(app, request, {.event = "signout", .username = user.username, .outcome = "ok"});
void audit(const App& app, const http::Request& request, AuditEvent event);

}  // namespace authd::handlers
