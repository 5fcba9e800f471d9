// The OpenID Connect clients for the admin role (as authctl client ...):
//   GET    /admin/clients                  -> {"clients":[client...]}
//   POST   /admin/clients {"name","redirect_uris":[...],"post_logout_redirect_uris":[...],
//                          "scopes":[...],"public":false,"first_party":false,
//                          "require_pushed_authorization_requests":false,
//                          "backchannel_logout_uri":"...","backchannel_logout_session_required":false,
//                          "grant_types":["client_credentials"],"role":"writer",
//                          "jwks":{"keys":[...]} | "jwks_uri":"https://..."}
//                                          -> 201 the client + "client_secret" (shown only here)
//   GET    /admin/clients/{id}             -> the client (never its secret)
//   DELETE /admin/clients/{id}             -> {"client_id":...,"deleted":true,"refresh_families_ended":N,
//                                              "consents_deleted":N}: its refresh families, consents and
//                                              (at /userinfo) access tokens end with it
//   POST   /admin/clients/{id}/secret      -> {"client_id","client_secret"}: a new secret
// Every change is audited.
#include "authd/clock.hpp"
#include "authd/oidc_clients.hpp"
#include "api/admin/routes.hpp"
#include "api/audit_request.hpp"
#include "api/json_body.hpp"

namespace authd::handlers {
namespace {

Result<std::vector<std::string>> string_list(const Json& body, std::string_view field) {
  std::vector<std::string> out;
  const Json value = body.get(field);
  if (value.is_null()) return out;
  if (!value.is_array()) return fail_field(std::string(field), std::string(field) + " must be an array of strings");
  for (std::size_t i = 0; i < value.size(); ++i) {
    const auto item = value.at(i).as_string();
    if (!item) return fail_field(std::string(field), std::string(field) + " must be an array of strings");
    out.emplace_back(*item);
  }
  return out;
}

Result<bool> flag(const Json& body, std::string_view field) {
  const Json value = body.get(field);
  if (value.is_null()) return false;
  if (!value.is_true() && value.dump() != "false") {
    return fail_field(std::string(field), std::string(field) + " must be true or false");
  }
  return value.is_true();
}

void audit_change(App& app, const http::Request& request, const RouteContext& context, std::string event,
                  std::string_view client_id, std::string reason = {}) {
  audit(app, request, {.event = std::move(event), .outcome = "ok",
                       .reason = reason.empty() ? "client " + std::string(client_id) : std::move(reason),
                       .actor = context.principal->user().username});
}

http::Response no_store(int status, const std::string& body) {
  auto response = http::Response::json_text(status, body);
  response.header("Cache-Control", "no-store");
  return response;
}

}  // namespace

HandlerResult admin_list_clients(App& app, const http::Request&, const RouteContext&) {
  auto clients = app.core->oidc_clients().list();
  if (!clients) return std::unexpected(clients.error());
  std::string body = "{\"clients\":[";
  for (std::size_t i = 0; i < clients->size(); ++i) body += (i ? "," : "") + describe_client((*clients)[i]).dump();
  return no_store(200, body + "]}");
}

HandlerResult admin_add_client(App& app, const http::Request& request, const RouteContext& context) {
  auto body = parse_json_body(app, request);
  if (!body) return std::unexpected(body.error());
  if (!body->is_object()) return fail(Errc::invalid_input, "the body must be a JSON object");
  OidcClient spec;
  auto name = required_field(*body, "name");
  if (!name) return std::unexpected(name.error());
  spec.name = std::move(*name);
  auto redirect_uris = string_list(*body, "redirect_uris");
  if (!redirect_uris) return std::unexpected(redirect_uris.error());
  auto post_logout = string_list(*body, "post_logout_redirect_uris");
  if (!post_logout) return std::unexpected(post_logout.error());
  auto scopes = string_list(*body, "scopes");
  if (!scopes) return std::unexpected(scopes.error());
  auto is_public = flag(*body, "public");
  if (!is_public) return std::unexpected(is_public.error());
  auto first_party = flag(*body, "first_party");
  if (!first_party) return std::unexpected(first_party.error());
  auto require_par = flag(*body, "require_pushed_authorization_requests");
  if (!require_par) return std::unexpected(require_par.error());
  auto grant_types = string_list(*body, "grant_types");
  if (!grant_types) return std::unexpected(grant_types.error());
  spec.grant_types = std::move(*grant_types);
  if (const Json role = body->get("role"); !role.is_null()) {
    const auto role_name = role.as_string();
    spec.role = role_name ? parse_role(*role_name) : std::nullopt;
    if (!spec.role) return fail_field("role", "role must be one of user, writer, editor, admin");
  }
  if (const Json jwks = body->get("jwks"); !jwks.is_null()) {
    if (!jwks.is_object()) return fail_field("jwks", "jwks must be a JWK Set object");
    spec.jwks = jwks.dump();
  }
  if (const Json uri = body->get("jwks_uri"); !uri.is_null()) {
    if (!uri.as_string()) return fail_field("jwks_uri", "jwks_uri must be a string");
    spec.jwks_uri = std::string(*uri.as_string());
  }
  spec.redirect_uris = std::move(*redirect_uris);
  spec.post_logout_uris = std::move(*post_logout);
  spec.scopes = std::move(*scopes);
  spec.is_public = *is_public;
  spec.first_party = *first_party;
  spec.require_par = *require_par;
  if (const Json uri = body->get("backchannel_logout_uri"); !uri.is_null()) {
    if (!uri.as_string()) return fail_field("backchannel_logout_uri", "backchannel_logout_uri must be a string");
    spec.backchannel_logout_uri = std::string(*uri.as_string());
  }
  auto session_required = flag(*body, "backchannel_logout_session_required");
  if (!session_required) return std::unexpected(session_required.error());
  if (*session_required && spec.backchannel_logout_uri.empty()) {
    return fail_field("backchannel_logout_session_required", "backchannel_logout_session_required needs a backchannel_logout_uri");
  }
  spec.backchannel_logout_session_required = *session_required;
  auto issued = app.core->oidc_clients().add(std::move(spec), unix_now());
  if (!issued) return std::unexpected(issued.error());
  audit_change(app, request, context, "client_added", issued->client.id);
  Json shown = describe_client(issued->client);
  if (!issued->secret.empty()) shown.set("client_secret", Json::string(issued->secret));
  return no_store(201, shown.dump());
}

HandlerResult admin_get_client(App& app, const http::Request&, const RouteContext& context) {
  auto client = app.core->oidc_clients().find(context.id);
  if (!client) return std::unexpected(client.error());
  return no_store(200, describe_client(*client).dump());
}

HandlerResult admin_remove_client(App& app, const http::Request& request, const RouteContext& context) {
  auto removed = app.core->oidc_clients().remove(context.id);
  if (!removed) return std::unexpected(removed.error());
  audit_change(app, request, context, "client_removed", context.id, describe_removal(context.id, *removed));
  Json body = Json::object();
  body.set("client_id", Json::string(context.id))
      .set("deleted", Json::boolean(true))
      .set("refresh_families_ended", Json::integer(static_cast<std::int64_t>(removed->refresh_families)))
      .set("consents_deleted", Json::integer(static_cast<std::int64_t>(removed->consents)));
  return no_store(200, body.dump());
}

HandlerResult admin_rotate_client_secret(App& app, const http::Request& request, const RouteContext& context) {
  auto issued = app.core->oidc_clients().rotate_secret(context.id);
  if (!issued) return std::unexpected(issued.error());
  audit_change(app, request, context, "client_secret_rotated", context.id);
  Json body = Json::object();
  body.set("client_id", Json::string(issued->client.id)).set("client_secret", Json::string(issued->secret));
  return no_store(200, body.dump());
}

}  // namespace authd::handlers
