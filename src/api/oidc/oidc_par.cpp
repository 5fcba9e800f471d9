// Pushed authorization requests (RFC 9126) of authd as OpenID provider:
//   POST /par  application/x-www-form-urlencoded: the parameters of an
//     authorization request (response_type, client_id, redirect_uri, scope,
//     state, nonce, code_challenge, ...), client authentication as at /token
//     (client_secret_basic, client_secret_post, or a public client's
//     client_id alone). Checked as /authorize checks them, then kept
//     (lib/oidc/pushed_requests.cpp): 201 {"request_uri":
//     "urn:ietf:params:oauth:request_uri:...","expires_in":90}, no-store.
//     The client then sends the browser to /authorize?client_id&request_uri.
//   Errors (RFC 9126 §2.3): 400 {"error","error_description"}
//     (invalid_request, invalid_scope, invalid_redirect_uri, ...),
//     401 invalid_client.
#include "authd/clock.hpp"
#include <set>

#include "authd/pushed_requests.hpp"
#include "authd/text.hpp"
#include "api/audit_request.hpp"
#include "api/oidc/authorization_request.hpp"
#include "api/oidc/client_auth.hpp"
#include "api/oidc/oidc.hpp"
#include "api/oidc/routes.hpp"
#include "http/query.hpp"

namespace authd::handlers {
namespace {

// A parameter the form holds twice, "" when none (RFC 6749 §3.1: none may be
// sent more than once; which one counted would be the parser's choice).
std::string repeated_parameter(std::string_view body) {
  std::set<std::string, std::less<>> seen;
  for (auto& [name, value] : text::split_form(body)) {
    if (!seen.insert(name).second) return name;
  }
  return {};
}

}  // namespace

HandlerResult oidc_par(App& app, const http::Request& request, const RouteContext&) {
  if (auto on = oidc::require_provider(app); !on) return std::unexpected(on.error());
  if (const auto twice = repeated_parameter(request.body); !twice.empty()) {
    return oidc::oauth_error(400, "invalid_request", "parameter " + twice + " sent more than once");
  }
  oidc::Form form = http::parse_query(request.body);
  auto caller = oidc::authenticate_client(app, request, form);
  if (!caller) return oidc::refused(caller.error());
  const auto& client = caller->client;
  if (!has_grant(client, kAuthorizationCodeGrant)) {
    return oidc::oauth_error(400, "unauthorized_client", not_registered_for(kAuthorizationCodeGrant));
  }
  // The client authentication is not part of the request kept.
  for (const auto* secret : {"client_secret", "client_assertion", "client_assertion_type"}) form.erase(secret);
  if (const auto named = oidc::param(form, "client_id"); !named.empty() && named != client.id) {
    return oidc::oauth_error(400, "invalid_request", "client_id differs from the authenticated client");
  }
  form.insert_or_assign("client_id", client.id);
  const auto redirect_uri = oidc::param(form, "redirect_uri");
  if (redirect_uri.empty()) return oidc::oauth_error(400, "invalid_request", "redirect_uri is required");
  if (!has_redirect_uri(client, redirect_uri)) {
    return oidc::oauth_error(400, "invalid_redirect_uri", "redirect_uri is not registered for this client");
  }
  if (auto refusal = oidc::refused_parameters(client, form)) {
    return oidc::oauth_error(400, refusal->error, refusal->description);
  }
  auto request_uri = app.core->pushed_requests().push(client.id, form, unix_now());
  if (!request_uri) return std::unexpected(request_uri.error());
  audit(app, request, {.event = "oidc_par", .username = client.id, .outcome = "ok", .reason = "request pushed"});
  Json body = Json::object();
  body.set("request_uri", Json::string(*request_uri)).set("expires_in", Json::integer(kPushedRequestTtl));
  auto response = http::Response::json(201, body);
  response.header("Cache-Control", "no-store");
  return response;
}

}  // namespace authd::handlers
