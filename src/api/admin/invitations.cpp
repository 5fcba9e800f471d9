// Invitations (authd/invitations.hpp, docs/mail.md):
//   POST   /admin/invitations {"email","role"} -> 201 {"id","email","role","created_at",
//          "expires_at","invited_by","mailed":true}: the link goes by mail only,
//          never in the answer (501 without mail: authctl invite prints it)
//   GET    /admin/invitations                 -> {"invitations":[...]} (pending ones)
//   DELETE /admin/invitations/{id}            -> {"id":...,"revoked":true}
//   POST   /signup/invitation {"token","username","password"[,"fullname"]}
//          -> 201 exactly like POST /signup; the account has the invited role
//          and the invited address, verified. 400 for an unknown, used,
//          revoked or expired token; 409 for a taken username (the
//          invitation stays usable). Open whatever signup_mode says.
// The admin routes take the admin's bearer token or `auth` cookie (api/access_policy.cpp);
// every route here refuses other sites (the route table).
#include "authd/clock.hpp"
#include "authd/invitations.hpp"
#include "api/admin/routes.hpp"
#include "api/audit_request.hpp"
#include "api/json_body.hpp"
#include "api/session/session_answers.hpp"
#include "program/log.hpp"

namespace authd::handlers {
namespace {

http::Response no_store(int status, const Json& body) {
  auto response = http::Response::json(status, body);
  response.header("Cache-Control", "no-store");
  return response;
}

Result<Json> json_object_body(App& app, const http::Request& request) {
  auto body = parse_json_body(app, request);
  if (!body) return std::unexpected(body.error());
  if (!body->is_object()) return fail(Errc::invalid_input, "request body must be a JSON object");
  return body;
}

}  // namespace

HandlerResult admin_create_invitation(App& app, const http::Request& request, const RouteContext& context) {
  auto body = json_object_body(app, request);
  if (!body) return std::unexpected(body.error());
  auto email = required_field(*body, "email");
  if (!email) return std::unexpected(email.error());
  const auto role_name = body->get_string("role");
  if (!role_name) return fail_field("role", "role is required: one of admin, editor, writer, user");
  const auto role = parse_role(*role_name);
  if (!role) return fail_field("role", "role must be one of admin, editor, writer, user");
  const auto& settings = app.core->settings();
  if (!settings.mail.enabled()) {
    return fail(Errc::not_configured,
                "mail is not configured (smtp_url): an invitation goes by mail; authctl invite prints its link instead");
  }
  const std::string& admin = context.principal->user().username;
  auto issued = app.core->invitations().create(*email, *role, admin, context.principal->user().id,
                                               settings.invitations.ttl, settings.mail.public_url, true, unix_now());
  if (!issued) return std::unexpected(issued.error());
  const Invitation& invitation = issued->invitation;
  audit(app, request, {.event = "invitation_created", .outcome = "ok",
                       .reason = "invitation " + invitation.id + ", role " + std::string(to_string(invitation.role)),
                       .actor = admin});
  Json answer = to_json(invitation);
  answer.set("mailed", Json::boolean(issued->mailed));
  return no_store(201, answer);
}

HandlerResult admin_list_invitations(App& app, const http::Request&, const RouteContext&) {
  auto pending = app.core->invitations().list(unix_now());
  if (!pending) return std::unexpected(pending.error());
  Json list = Json::array();
  for (const auto& invitation : *pending) list.append(to_json(invitation));
  Json answer = Json::object();
  answer.set("invitations", std::move(list));
  return no_store(200, answer);
}

HandlerResult admin_revoke_invitation(App& app, const http::Request& request, const RouteContext& context) {
  auto revoked = app.core->invitations().revoke(context.id);
  if (!revoked) return std::unexpected(revoked.error());
  audit(app, request, {.event = "invitation_revoked", .outcome = "ok", .reason = "invitation " + revoked->id,
                       .actor = context.principal->user().username});
  Json answer = Json::object();
  answer.set("id", Json::string(revoked->id)).set("revoked", Json::boolean(true));
  return no_store(200, answer);
}

HandlerResult accept_invitation(App& app, const http::Request& request, const RouteContext&) {
  auto body = json_object_body(app, request);
  if (!body) return std::unexpected(body.error());
  InvitationAcceptance acceptance;
  for (auto [field, target] : {std::pair{"token", &acceptance.token}, std::pair{"username", &acceptance.username},
                               std::pair{"password", &acceptance.password}}) {
    auto value = required_field(*body, field);
    if (!value) return std::unexpected(value.error());
    *target = std::move(*value);
  }
  if (body->has("fullname")) {
    const auto fullname = body->get_string("fullname");
    if (!fullname) return fail_field("fullname", "fullname must be a string");
    acceptance.fullname = std::string(*fullname);
  }
  auto user = app.core->invitations().accept(acceptance, unix_now());
  if (!user) {
    const auto& error = user.error();
    if (error.code == Errc::conflict || error.code == Errc::invalid_input) {
      audit(app, request, {.event = "invitation_accepted", .username = error.field == "token" ? "" : acceptance.username,
                           .outcome = "refused",
                           .reason = error.field == "token"       ? "unknown, used, revoked or expired link"
                                     : error.code == Errc::conflict ? "username taken"
                                                                     : "invalid input"});
    }
    return std::unexpected(error);
  }
  audit(app, request, {.event = "invitation_accepted", .username = user->username, .outcome = "ok",
                       .reason = "role " + std::string(to_string(user->role)) + ", email verified"});
  return token_response(app, request, 201, *user, signup_user_json(*user));
}

}  // namespace authd::handlers
