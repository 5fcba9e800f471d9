#include "api/access_policy.hpp"

#include <string>

#include "api/audit_request.hpp"
#include "api/cookie_bearer.hpp"
#include "authd/clock.hpp"
#include "authd/text.hpp"
#include "http/cross_site.hpp"

namespace authd {
namespace {

// A bearer token in the Authorization header: a browser never attaches one by
// itself, and a page of another site cannot make it send one without a CORS
// preflight, which authd never grants. (Basic credentials, by contrast, a
// browser caches and sends to any request.)
bool bearer_header(const http::Request& request) {
  const auto authorization = request.authorization();
  return authorization.size() > 7 && text::iequals(authorization.substr(0, 7), "Bearer ");
}

// The admin routes take a bearer token or, for the browser admin page, the
// HttpOnly `auth` cookie. Errors: as the guard; not_permitted for another role
// or a cross-site change.
Result<Principal> admin_principal(App& app, const http::Request& request, const Route& route) {
  std::string authorization(request.authorization());
  if (authorization.empty()) {
    auto cookie = bearer_from_cookie(request);
    if (!cookie) return std::unexpected(cookie.error());
    authorization = std::move(*cookie);
  }
  auto principal = app.core->guard().check(authorization, std::nullopt, unix_now());
  if (!principal) return principal;
  if (principal->user().role != Role::admin) {
    handlers::audit(app, request, {.event = "denied", .username = principal->user().username, .outcome = "refused",
                                   .reason = "admin role required for " + std::string(route.pattern)});
    return fail(Errc::not_permitted, "admin role required");
  }
  // A service client's token narrowed by its scope is not the whole admin role.
  if (is_service_subject(principal->claims().subject)) {
    for (const auto capability : capabilities_of(Role::admin)) {
      if (auto allowed = Guard::authorize(*principal, capability); !allowed) return std::unexpected(allowed.error());
    }
  }
  return principal;
}

}  // namespace

bool changes_state(const Route& route) noexcept { return route.method != "GET" && route.method != "*"; }

Result<void> admit_site(const Route& route, const http::Request& request) {
  // Whatever else authenticates the request (nothing, the cookie, Basic, a
  // token in the body): the table, not each handler, keeps other sites out.
  if (changes_state(route) && route.site == Site::same && !bearer_header(request)) {
    return http::refuse_cross_site(request);
  }
  return {};
}

Result<void> admit_body(const Route& route, const http::Request& request) {
  if (route.body == Body::json && !request.body.empty()) return http::require_json_body(request);
  if (route.body == Body::form && !request.body.empty()) return http::require_form_body(request);
  return {};
}

Result<void> admit(const Route& route, const http::Request& request) {
  if (auto same = admit_site(route, request); !same) return same;
  return admit_body(route, request);
}

Result<Principal> authenticate(App& app, const http::Request& request, const Route& route) {
  // RFC 6750 §2.3 tokens in URIs end up in logs and histories: refuse the
  // query-parameter method outright (and so any second credential with it).
  if (text::query_value(request.query, "access_token")) {
    return fail(Errc::malformed_credentials, "access_token in the query string is not accepted");
  }
  std::string_view authorization = request.authorization();
  std::string from_cookie;
  const bool session = route.access == Access::session || route.access == Access::enrol;
  if (session && authorization.empty()) {
    auto cookie = bearer_from_cookie(request);
    if (!cookie) return std::unexpected(cookie.error());
    from_cookie = std::move(*cookie);
    authorization = from_cookie;
  }
  auto principal = route.access == Access::admin   ? admin_principal(app, request, route)
                   : route.access == Access::enrol ? app.core->guard().check_for_enrolment(authorization, unix_now())
                                                   : app.core->guard().check(authorization, route.capability, unix_now());
  // A service client's token (client_credentials) acts as its role at the
  // capability-guarded and admin routes; it has no account of its own.
  if (principal && session && is_service_subject(principal->claims().subject)) {
    Error refused(Errc::not_permitted, "a service client's token is not a user's session");
    refused.username = principal->user().username;
    principal = std::unexpected(std::move(refused));
  }
  if (!principal && (principal.error().code != Errc::not_permitted || route.access != Access::admin)) {
    // A valid token refused (capability, second factor) is named.
    handlers::audit(app, request, {.event = "denied", .username = principal.error().username, .outcome = "refused",
                                   .reason = std::string(to_string(principal.error().code)) + " on " +
                                             std::string(route.pattern)});
  }
  return principal;
}

}  // namespace authd
