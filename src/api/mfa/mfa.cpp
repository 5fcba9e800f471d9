// The signed-in user's second factors (bearer token or the pages' cookie;
// reachable without a second factor, so that a user of a role in
// mfa_required_roles can enrol one: Access::enrol in routes.hpp).
//   GET    /me/mfa               {"totp","totp_pending","recovery_codes","passkeys":[...],"methods":[...],"required",
//                                  "passkeys_enabled"}: the members before "methods" come from the
//                                  registered second-factor methods (second_factor_methods.hpp)
//   POST   /me/mfa/totp          {"secret","otpauth_uri","qr_svg"}: a new, unconfirmed secret
//   POST   /me/mfa/totp/confirm  {"code"} -> {"recovery_codes":[10 codes]}, shown once
//   DELETE /me/mfa/totp          -> 204
// Once the user has an active factor, these changes need a token showing a
// second factor or {"second_factor": code}; a confirmed or removed factor
// ends the user's other sessions (factor_change.cpp).
// and POST /signin/mfa {"mfa_token","code"|"webauthn"}: the second step of a sign-in
// (the member named as an answering method carries its answer: "webauthn").
#include <algorithm>

#include "authd/clock.hpp"
#include "authd/qr_svg.hpp"
#include "api/audit_request.hpp"
#include "api/json_body.hpp"
#include "api/mfa/factor_checks.hpp"
#include "api/mfa/routes.hpp"
#include "api/security_notices.hpp"
#include "api/session/session_answers.hpp"
#include "program/log.hpp"
#include "authd/second_factor_methods.hpp"

namespace authd::handlers {
namespace {

http::Response no_store(http::Response response) {
  response.header("Cache-Control", "no-store");
  return response;
}

// The "code" member: a string, or a JSON number for a TOTP code (leading
// zeros restored: 12345 is "012345").
Result<std::string> code_field(const Json& body) {
  if (body.is_object()) {
    if (const auto number = body.get_integer("code")) {
      if (*number < 0 || *number > 999999) return fail_field("code", "code must be 6 digits");
      std::string digits = std::to_string(*number);
      return std::string(6 - digits.size(), '0') + digits;
    }
  }
  return required_field(body, "code");
}

}  // namespace

HandlerResult mfa_status(App& app, const http::Request&, const RouteContext& context) {
  const User& user = context.principal->user();
  auto status = app.core->mfa().status(user);
  if (!status) return std::unexpected(status.error());
  Json methods = Json::array();
  for (const auto& method : status->methods()) methods.append(Json::string(method));
  const auto& roles = app.core->settings().mfa.required_roles;
  Json body = status->shown;  // each method's members (second_factor_methods.hpp)
  body.set("methods", std::move(methods))
      .set("required", Json::boolean(std::ranges::find(roles, user.role) != roles.end()))
      .set("passkeys_enabled", Json::boolean(!app.core->settings().mfa.rp_id.empty()));
  return no_store(http::Response::json(200, body));
}

HandlerResult mfa_totp_begin(App& app, const http::Request& request, const RouteContext& context) {
  const User& user = context.principal->user();
  auto given = optional_json_body(app, request);
  if (!given) return std::unexpected(given.error());
  if (auto allowed = allow_factor_change(app, request, context, *given); !allowed) return std::unexpected(allowed.error());
  auto enrolment = app.core->mfa().begin_totp(user);
  if (!enrolment) return std::unexpected(enrolment.error());
  auto svg = qr_svg(enrolment->otpauth_uri);
  if (!svg) return std::unexpected(svg.error());
  audit(app, request, {.event = "mfa_totp_enrol", .username = user.username, .outcome = "ok"});
  Json body = Json::object();
  body.set("secret", Json::string(enrolment->secret))
      .set("otpauth_uri", Json::string(enrolment->otpauth_uri))
      .set("qr_svg", Json::string(*svg));
  return no_store(http::Response::json(200, body));
}

HandlerResult mfa_totp_confirm(App& app, const http::Request& request, const RouteContext& context) {
  auto body = parse_json_body(app, request);
  if (!body) return std::unexpected(body.error());
  auto code = code_field(*body);
  if (!code) return std::unexpected(code.error());
  if (auto allowed = allow_factor_change(app, request, context, *body); !allowed) return std::unexpected(allowed.error());
  const User& user = context.principal->user();
  const auto now = unix_now();
  auto& throttle = app.core->throttle();
  const std::string key = second_factor_throttle_key(user.username);
  if (auto allowed = throttle.check(key, request.remote_addr, now); !allowed) {
    return std::unexpected(allowed.error());
  }
  auto codes = app.core->mfa().confirm_totp(user, *code, now);
  if (!codes) {
    if (codes.error().code == Errc::invalid_input) {
      if (auto counted = throttle.record_failure(key, request.remote_addr, now); !counted) {
        log::warn("cannot count a failed TOTP confirmation: " + counted.error().message);
      }
    }
    return std::unexpected(codes.error());
  }
  audit(app, request, {.event = "mfa_totp_confirmed", .username = user.username, .outcome = "ok"});
  notify(app, user, "mfa_added");
  Json list = Json::array();
  for (const auto& c : *codes) list.append(Json::string(c));
  Json answer = Json::object();
  answer.set("recovery_codes", std::move(list));
  return end_other_sessions(app, request, context, no_store(http::Response::json(200, answer)));
}

HandlerResult mfa_totp_remove(App& app, const http::Request& request, const RouteContext& context) {
  const User& user = context.principal->user();
  auto body = optional_json_body(app, request);
  if (!body) return std::unexpected(body.error());
  if (auto allowed = allow_factor_change(app, request, context, *body); !allowed) return std::unexpected(allowed.error());
  if (auto removed = app.core->mfa().remove_totp(user); !removed) return std::unexpected(removed.error());
  audit(app, request, {.event = "mfa_totp_removed", .username = user.username, .outcome = "ok",
                       .reason = "every other token ended"});
  notify(app, user, "mfa_removed");
  http::Response response;
  response.status = 204;
  return end_other_sessions(app, request, context, no_store(std::move(response)));
}

Result<void> ask_second_factor(App& app, const http::Request& request, const User& user, std::string_view first) {
  auto due = app.core->sign_in().second_factor_due(user, first, sign_in_client(request), unix_now());
  if (!due) return std::unexpected(due.error());
  if (*due) return fail(Error::second_factor_due(std::move((*due)->mfa_token), std::move((*due)->methods)));
  return {};
}

HandlerResult signin_mfa(App& app, const http::Request& request, const RouteContext&) {
  auto body = parse_json_body(app, request);
  if (!body) return std::unexpected(body.error());
  auto token = required_field(*body, "mfa_token");
  if (!token) return std::unexpected(token.error());
  // Either {"code"} (TOTP or recovery code) or the answer of a method that
  // takes one, as the member named as the method: {"webauthn": credential}
  // (a passkey assertion; second_factor_methods.hpp, verify_answer).
  SecondFactorProof proof;
  for (const auto& method : second_factor_methods()) {
    if (!method->verify_answer || !body->has(method->name)) continue;
    proof.method = method->name;
    proof.answer = body->get(method->name);
    break;
  }
  if (proof.method.empty()) {
    auto given = code_field(*body);
    if (!given) return std::unexpected(given.error());
    proof.code = std::move(*given);
  }
  return sign_in_answer(app, request,
                        app.core->sign_in().with_second_factor(*token, proof, sign_in_client(request), unix_now()));
}

}  // namespace authd::handlers
