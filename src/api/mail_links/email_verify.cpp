// Verified email (authd/email_verification.hpp, docs/mail.md):
//   GET  /email/verify?token=...  -> 303 to the page verify.html#token=...
//        (the mailed link; a GET changes nothing, so a mail scanner or a
//        prefetch that follows it spends no token: the page posts it)
//   POST /email/verify {"token"} -> 200 {"username","email","email_verified":true};
//        400 for an unknown, used or expired token
//   POST /email/verify/resend {"username"} -> 202, always the same body
//        after the same time (password_forgot_time): no enumeration
//   PUT  /me/email {"email","password"} -> 202: the new address is mailed a
//        link and replaces the old one once verified (the old one is told)
// (require_verified_email's sign-in refusal: lib/core/sign_in.cpp).

#include "authd/authorization.hpp"
#include "authd/clock.hpp"
#include "authd/mfa.hpp"
#include "authd/text.hpp"
#include "api/audit_request.hpp"
#include "api/json_body.hpp"
#include "api/mail_links/mailing_request.hpp"
#include "api/mail_links/routes.hpp"
#include "program/log.hpp"

namespace authd::handlers {
namespace {

constexpr std::string_view kResendAnswer =
    "If the account exists and its email address is not verified yet, a new link is on its way.";

Result<Json> json_object_body(App& app, const http::Request& request) {
  auto body = parse_json_body(app, request);
  if (!body) return std::unexpected(body.error());
  if (!body->is_object()) return fail(Errc::invalid_input, "request body must be a JSON object");
  return body;
}

bool token_char(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

std::string_view amr_of(const Principal& principal) {
  const auto amr = principal.claims().extra.find(kAmrClaim);
  return amr == principal.claims().extra.end() ? std::string_view() : std::string_view(amr->second);
}

}  // namespace

HandlerResult email_verify_link(App&, const http::Request& request, const RouteContext&) {
  // Relative, so that it works below any prefix: /email/verify -> /verify.html.
  // The token moves into the fragment, which the browser never sends on.
  std::string location = "../verify.html";
  if (const auto token = text::query_value(request.query, "token"); token && !token->empty() && token->size() <= 128) {
    bool clean = true;
    for (unsigned char c : *token) clean = clean && token_char(c);
    if (clean) location += "#token=" + std::string(*token);
  }
  http::Response response;
  response.status = 303;
  response.header("Location", location).header("Cache-Control", "no-store").header("Referrer-Policy", "no-referrer");
  return response;
}

HandlerResult email_verify(App& app, const http::Request& request, const RouteContext&) {
  auto body = json_object_body(app, request);
  if (!body) return std::unexpected(body.error());
  auto token = required_field(*body, "token");
  if (!token) return std::unexpected(token.error());
  auto verified = app.core->email_verification().verify(*token, unix_now());
  if (!verified) {
    if (verified.error().field == "token") {
      audit(app, request, {.event = "email_verified", .outcome = "refused", .reason = "unknown, used or expired link"});
    }
    return std::unexpected(verified.error());
  }
  const User& user = verified->user;
  audit(app, request, {.event = "email_verified", .username = user.username, .outcome = "ok",
                       .reason = verified->previous_email.empty() ? "address confirmed" : "address changed"});
  Json answer = Json::object();
  answer.set("username", Json::string(user.username))
      .set("email", Json::string(user.email))
      .set("email_verified", Json::boolean(true));
  auto response = http::Response::json(200, answer);
  response.header("Cache-Control", "no-store");
  return response;
}

HandlerResult email_verify_resend(App& app, const http::Request& request, const RouteContext&) {
  const auto started = std::chrono::steady_clock::now();
  auto body = json_object_body(app, request);
  if (!body) return std::unexpected(body.error());
  auto username = required_field(*body, "username");
  if (!username) return std::unexpected(username.error());
  if (username->size() > 1024) return fail_field("username", "username is too long");
  const auto now = unix_now();
  return answer_mailing_request(app, request, {"email_verify_requested", "email verification", kResendAnswer, started},
                                app.core->email_verification().admit_address(request.remote_addr, now),
                                [&](std::string& found) {
                                  return app.core->email_verification().resend(*username, now, found);
                                });
}

HandlerResult change_email(App& app, const http::Request& request, const RouteContext& context) {
  auto body = json_object_body(app, request);
  if (!body) return std::unexpected(body.error());
  auto email = required_field(*body, "email");
  if (!email) return std::unexpected(email.error());
  if (email->size() > app.core->settings().credentials.email_max_length || !mail::valid_address(*email)) {
    return fail_field("email", "email must be an address like name@example.com");
  }
  if (!app.core->settings().mail.enabled()) {
    return fail(Errc::not_configured, "mail is not configured: an address cannot be verified");
  }
  User user = context.principal->user();
  const auto now = unix_now();
  // Who asks: the current password, or a session that showed a second factor.
  if (!amr_has_second_factor(amr_of(*context.principal))) {
    if (!body->has("password")) {
      return fail_field("password", "password (the current one) is required, or a session signed in with a second factor");
    }
    auto password = required_field(*body, "password");
    if (!password) return std::unexpected(password.error());
    auto& throttle = app.core->throttle();
    if (auto allowed = throttle.check(user.username, request.remote_addr, now); !allowed) {
      return std::unexpected(allowed.error());
    }
    auto checked = app.core->accounts().sign_in(BasicCredentials{user.username, *password});
    if (!checked) {
      if (checked.error().code == Errc::invalid_login) {
        audit(app, request, {.event = "email_change_failed", .username = user.username, .outcome = "refused",
                             .reason = "wrong current password"});
        if (auto counted = throttle.record_failure(user.username, request.remote_addr, now); !counted) {
          log::warn("cannot count a failed password check: " + counted.error().message);
        }
      }
      return std::unexpected(checked.error());
    }
    user = *checked;
  }
  auto outcome = app.core->email_verification().send(user, *email, now);
  if (!outcome) return std::unexpected(outcome.error());
  const bool accepted = *outcome == MailOutcome::queued || *outcome == MailOutcome::verified;
  audit(app, request, {.event = "email_change_requested", .username = user.username,
                       .outcome = accepted ? "ok" : "refused", .reason = std::string(to_string(*outcome))});
  if (*outcome == MailOutcome::limited) {
    return fail(Error::retry_later(Errc::throttled, 3600, "too many verification mails for this account"));
  }
  Json answer = Json::object();
  const bool done = *outcome == MailOutcome::verified;
  answer.set("email", Json::string(done ? user.email : *email))
      .set("email_verified", Json::boolean(done))
      .set("message", Json::string(done ? "this is the account's verified address already"
                                        : "a link to confirm the new address is on its way; the account keeps "
                                          "its current address until it is opened"));
  auto response = http::Response::json(done ? 200 : 202, answer);
  response.header("Cache-Control", "no-store");
  return response;
}

}  // namespace authd::handlers
