// Password reset by mail (authd/password_reset.hpp):
//   POST /password/forgot {"username"} or {"email"} -> 202, always the same
//        body after the same time (password_forgot_time), whether or not
//        the account exists or has an email; 429 past the per-address limit.
//   POST /password/reset {"token","new_password"} -> 200 like /signin (or
//        401 MFA Required for a user with a second factor); every other
//        token and refresh family of the user ends. A used, expired or
//        unknown token: 400 {"error":"the reset link is unknown, used or expired: ..."}.
// Both refuse cross-site requests and take application/json only.

#include "authd/clock.hpp"
#include "api/audit_request.hpp"
#include "api/json_body.hpp"
#include "api/mail_links/mailing_request.hpp"
#include "api/mail_links/routes.hpp"
#include "api/mfa/factor_checks.hpp"
#include "api/session/session_answers.hpp"
#include "http/cross_site.hpp"

namespace authd::handlers {
namespace {

constexpr std::string_view kForgotAnswer =
    "If the account exists and has an email address, a link to reset its password is on its way.";

Result<Json> json_object_body(App& app, const http::Request& request) {
  if (auto same_site = http::refuse_cross_site(request); !same_site) return std::unexpected(same_site.error());
  if (auto json = http::require_json_body(request); !json) return std::unexpected(json.error());
  auto body = parse_json_body(app, request);
  if (!body) return std::unexpected(body.error());
  if (!body->is_object()) return fail(Errc::invalid_input, "request body must be a JSON object");
  return body;
}

// An optional string member: "" when absent. Error: invalid_input naming it.
Result<std::string> optional_string(const Json& body, std::string_view field, std::size_t max) {
  if (!body.has(field)) return std::string();
  const auto value = body.get_string(field);
  if (!value) return fail_field(std::string(field), std::string(field) + " must be a string");
  if (value->size() > max) return fail_field(std::string(field), std::string(field) + " is too long");
  return std::string(*value);
}

}  // namespace

HandlerResult password_forgot(App& app, const http::Request& request, const RouteContext&) {
  const auto started = std::chrono::steady_clock::now();
  auto body = json_object_body(app, request);
  if (!body) return std::unexpected(body.error());
  auto username = optional_string(*body, "username", 1024);
  if (!username) return std::unexpected(username.error());
  auto email = optional_string(*body, "email", 1024);
  if (!email) return std::unexpected(email.error());
  if (username->empty() == email->empty()) return fail(Errc::invalid_input, "give either username or email");
  const auto now = unix_now();
  PasswordReset& resets = app.core->password_reset();
  return answer_mailing_request(app, request, {"password_reset_requested", "password reset", kForgotAnswer, started},
                                resets.admit_address(request.remote_addr, now), [&](std::string& found) {
                                  return resets.request(*username, *email, now, found);
                                });
}

HandlerResult password_reset(App& app, const http::Request& request, const RouteContext&) {
  auto body = json_object_body(app, request);
  if (!body) return std::unexpected(body.error());
  auto token = required_field(*body, "token");
  if (!token) return std::unexpected(token.error());
  auto password = required_field(*body, "new_password");
  if (!password) return std::unexpected(password.error());
  auto user = app.core->password_reset().reset(*token, *password, unix_now());
  if (!user) {
    if (user.error().field == "token") {
      audit(app, request, {.event = "password_reset", .outcome = "refused", .reason = "unknown, used or expired link"});
    }
    return std::unexpected(user.error());
  }
  after_password_change(app.core->refresh(), app.core->store(), app.core->settings().mail, app.core->mail_templates(),
                        app.core->events(), *user, unix_now());
  audit(app, request, {.event = "password_reset", .username = user->username, .outcome = "ok",
                       .reason = "every other token ended"});
  if (auto second = ask_second_factor(app, request, *user, "pwd"); !second) return std::unexpected(second.error());
  Json shown = Json::object();
  shown.set("acl", Json::array()).set("username", Json::string(user->username));
  return token_response(app, request, 200, *user, std::move(shown));
}

}  // namespace authd::handlers
