// Passkeys (WebAuthn; lib/mfa/include/authd/passkeys.hpp). Options come back as
// {"publicKey": {...}} with binary members base64url-encoded; the pages
// (www/assets/passkeys.js) decode them for navigator.credentials and encode
// the credential back.
//   POST   /me/mfa/webauthn/register/begin   -> {"publicKey"}
//   POST   /me/mfa/webauthn/register/finish  credential (+ "name") -> {"id","recovery_codes":[...]}
//   DELETE /me/mfa/webauthn/{id}             -> 204
//   POST   /signin/mfa/webauthn/begin        {"mfa_token"} -> {"publicKey"} for POST /signin/mfa {"mfa_token","webauthn"}
//   GET    /signin/passkey                   -> {"enabled"}: whether the portal offers it
//   POST   /signin/passkey/begin             -> {"publicKey"}   (passkey_signin = true)
//   POST   /signin/passkey/finish            credential -> 200 like /signin, amr "hwk mfa" (user verification required)
//                                             (the sign-in use case, lib/core/sign_in.cpp)
// Registration and removal: as the TOTP routes (mfa.cpp), a token showing a
// second factor or {"second_factor": code} once the user has a factor, and
// the user's other sessions end (factor_change.cpp).
#include "authd/clock.hpp"
#include "authd/passkeys.hpp"
#include "api/audit_request.hpp"
#include "api/json_body.hpp"
#include "api/mfa/factor_checks.hpp"
#include "api/mfa/routes.hpp"
#include "api/security_notices.hpp"
#include "api/session/session_answers.hpp"

namespace authd::handlers {
namespace {

http::Response options_response(Json options) {
  Json body = Json::object();
  body.set("publicKey", std::move(options));
  auto response = http::Response::json(200, body);
  response.header("Cache-Control", "no-store");
  return response;
}

}  // namespace

HandlerResult passkey_register_begin(App& app, const http::Request& request, const RouteContext& context) {
  auto body = optional_json_body(app, request);
  if (!body) return std::unexpected(body.error());
  if (auto allowed = allow_factor_change(app, request, context, *body); !allowed) return std::unexpected(allowed.error());
  auto options = app.core->passkeys().begin_registration(context.principal->user(), unix_now());
  if (!options) return std::unexpected(options.error());
  return options_response(std::move(*options));
}

HandlerResult passkey_register_finish(App& app, const http::Request& request, const RouteContext& context) {
  auto body = parse_json_body(app, request);
  if (!body) return std::unexpected(body.error());
  if (!body->is_object()) return fail(Errc::invalid_input, "request body must be a JSON object");
  const User& user = context.principal->user();
  const auto name = body->get_string("name").value_or("passkey");
  if (name.size() > 64) return fail_field("name", "name must be at most 64 characters");
  if (auto allowed = allow_factor_change(app, request, context, *body); !allowed) return std::unexpected(allowed.error());
  auto registered = app.core->passkeys().finish_registration(user, *body, name, unix_now());
  if (!registered) {
    // A refused ceremony is the client's mistake here, not a failed sign-in.
    if (registered.error().code == Errc::mfa_failed) return fail(Errc::invalid_input, registered.error().message);
    return std::unexpected(registered.error());
  }
  audit(app, request, {.event = "mfa_passkey_registered", .username = user.username, .outcome = "ok",
                       .reason = "every other token ended"});
  notify(app, user, "mfa_added");
  Json codes = Json::array();
  for (const auto& code : registered->recovery_codes) codes.append(Json::string(code));
  Json answer = Json::object();
  answer.set("id", Json::string(registered->id)).set("recovery_codes", std::move(codes));
  return end_other_sessions(app, request, context, http::Response::json(200, answer));
}

HandlerResult passkey_remove(App& app, const http::Request& request, const RouteContext& context) {
  const User& user = context.principal->user();
  auto body = optional_json_body(app, request);
  if (!body) return std::unexpected(body.error());
  if (auto allowed = allow_factor_change(app, request, context, *body); !allowed) return std::unexpected(allowed.error());
  if (auto removed = app.core->passkeys().remove(user, context.id); !removed) return std::unexpected(removed.error());
  audit(app, request, {.event = "mfa_passkey_removed", .username = user.username, .outcome = "ok",
                       .reason = "every other token ended"});
  notify(app, user, "mfa_removed");
  http::Response response;
  response.status = 204;
  return end_other_sessions(app, request, context, std::move(response));
}

HandlerResult signin_mfa_webauthn_begin(App& app, const http::Request& request, const RouteContext&) {
  auto body = parse_json_body(app, request);
  if (!body) return std::unexpected(body.error());
  auto token = required_field(*body, "mfa_token");
  if (!token) return std::unexpected(token.error());
  auto pending = app.core->mfa().pending(*token, unix_now());
  if (!pending) return std::unexpected(pending.error());
  auto user = app.core->accounts().find(pending->username);
  if (!user || user->id != pending->user_id) return fail(Errc::mfa_failed, "the account of this sign-in no longer exists");
  auto options = app.core->passkeys().begin_authentication(*user, unix_now());
  if (!options) return std::unexpected(options.error());
  return options_response(std::move(*options));
}

HandlerResult passkey_signin_status(App& app, const http::Request&, const RouteContext&) {
  Json body = Json::object();
  body.set("enabled", Json::boolean(app.core->settings().mfa.passkey_signin && !app.core->settings().mfa.rp_id.empty()));
  return http::Response::json(200, body);
}

HandlerResult passkey_signin_begin(App& app, const http::Request&, const RouteContext&) {
  if (!app.core->settings().mfa.passkey_signin) return fail(Errc::not_configured, "passkey sign-in is off (passkey_signin)");
  auto options = app.core->passkeys().begin_authentication(std::nullopt, unix_now());
  if (!options) return std::unexpected(options.error());
  return options_response(std::move(*options));
}

HandlerResult passkey_signin_finish(App& app, const http::Request& request, const RouteContext&) {
  if (!app.core->settings().mfa.passkey_signin) return fail(Errc::not_configured, "passkey sign-in is off (passkey_signin)");
  auto body = parse_json_body(app, request);
  if (!body) return std::unexpected(body.error());
  return sign_in_answer(app, request,
                        app.core->sign_in().with_method("webauthn", *body, sign_in_client(request), unix_now()));
}

}  // namespace authd::handlers
