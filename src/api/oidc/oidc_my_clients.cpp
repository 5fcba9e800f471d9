// The applications a user allowed (the consents of /authorize), for /account:
//   GET    /me/clients        {"clients":[{"client_id","name"}]}
//   DELETE /me/clients/{id}   forgets the consent and ends the user's refresh
//                             tokens of that client -> {"client_id","revoked":true}
#include "authd/clock.hpp"
#include "authd/oidc_consents.hpp"
#include "api/audit_request.hpp"
#include "api/oidc/routes.hpp"

namespace authd::handlers {

HandlerResult my_clients(App& app, const http::Request&, const RouteContext& context) {
  auto clients = app.core->oidc_clients().list();
  if (!clients) return std::unexpected(clients.error());
  OidcConsents& consents = app.core->oidc_consents();
  const auto now = unix_now();
  Json listed = Json::array();
  for (const auto& client : *clients) {
    auto allowed = consents.covers(context.principal->user().id, client.id, "openid", now);
    if (!allowed) return std::unexpected(allowed.error());
    if (!*allowed) continue;
    Json entry = Json::object();
    entry.set("client_id", Json::string(client.id)).set("name", Json::string(client.name));
    listed.append(std::move(entry));
  }
  Json body = Json::object();
  body.set("clients", std::move(listed));
  auto response = http::Response::json(200, body);
  response.header("Cache-Control", "no-store");
  return response;
}

HandlerResult revoke_my_client(App& app, const http::Request& request, const RouteContext& context) {
  const User& user = context.principal->user();
  const std::string client_id(context.id);
  auto allowed = app.core->oidc_consents().covers(user.id, client_id, "openid", unix_now());
  if (!allowed) return std::unexpected(allowed.error());
  if (!*allowed) return fail(Errc::not_found, "no consent for this client");
  if (auto done = app.core->oidc_consents().revoke(user.id, client_id); !done) return std::unexpected(done.error());
  if (auto ended = app.core->refresh().end_client(user.id, client_id); !ended) return std::unexpected(ended.error());
  audit(app, request, {.event = "oidc_consent_revoked", .username = user.username, .outcome = "ok",
                       .reason = "client " + client_id});
  Json body = Json::object();
  body.set("client_id", Json::string(client_id)).set("revoked", Json::boolean(true));
  return http::Response::json(200, body);
}

}  // namespace authd::handlers
