// POST /signup {username, password, fullname, email} -> 201 {token, user}
// Only as application/json and not from another site (no login CSRF through
// a form: the route table's checks, api/access_policy.cpp admit()); sign-ups per
// address are limited (signup_address_limit). With mail on, the email is
// mailed a verification link (mail_links/email_verify.cpp). The browser that made the
// account gets the device cookie a sign-in gives (sign_in_answer.cpp): its
// owner's next sign-in there is no "new device" (docs/mail.md).
// With signup_mode = invite: 403 {"error":"Sign-up Closed",...} (admin/invitations.cpp
// is the way in then).
#include "authd/clock.hpp"
#include "api/audit_request.hpp"
#include "api/json_body.hpp"
#include "api/session/routes.hpp"
#include "api/session/session_answers.hpp"
#include "program/log.hpp"

namespace authd::handlers {

Json signup_user_json(const User& user) {
  // The spec's shape: __v, _id, acl, password (the stored hash), role, username.
  Json shown = Json::object();
  shown.set("__v", Json::integer(user.version))
      .set("_id", Json::string(user.id))
      .set("acl", Json::array())
      .set("password", Json::string(user.password_hash))
      .set("role", Json::string(to_string(user.role)))
      .set("username", Json::string(user.username));
  return shown;
}

HandlerResult signup(App& app, const http::Request& request, const RouteContext&) {
  if (app.core->settings().invitations.signup_mode == SignupMode::invite) {
    audit(app, request, {.event = "signup", .outcome = "refused", .reason = "sign-up by invitation only"});
    return fail(Errc::signup_closed, "sign-up is by invitation only: ask an administrator for an invitation");
  }
  auto body = parse_json_body(app, request);
  if (!body) return std::unexpected(body.error());
  auto fields = signup_request_from_json(*body);
  if (!fields) return std::unexpected(fields.error());
  if (auto admitted = app.core->throttle().admit_signup(request.remote_addr, unix_now()); !admitted) {
    return std::unexpected(admitted.error());
  }
  auto user = app.core->accounts().sign_up(*fields);
  if (!user) {
    if (user.error().code == Errc::conflict || user.error().code == Errc::invalid_input) {
      audit(app, request, {.event = "signup", .username = fields->username, .outcome = "refused",
                           .reason = user.error().code == Errc::conflict ? "username taken" : "invalid input"});
    }
    return std::unexpected(user.error());
  }
  audit(app, request, {.event = "signup", .username = user->username, .outcome = "ok"});
  // The email is stored unverified; with mail on, a link to verify it is
  // queued (token and message in one transaction). The sign-up stands either way.
  if (auto sent = app.core->email_verification().send(*user, user->email, unix_now()); !sent) {
    log::warn("cannot queue the verification mail of a new account: " + sent.error().message);
  } else if (*sent == MailOutcome::queued) {
    audit(app, request, {.event = "email_verify_requested", .username = user->username, .outcome = "ok",
                         .reason = "sign-up"});
  }

  Json shown = signup_user_json(*user);
  // require_verified_email: no session before the address is verified.
  if (app.core->settings().mail.require_verified_email && !user->email_verified) {
    Json answer = Json::object();
    answer.set("user", std::move(shown))
        .set("email_verified", Json::boolean(false))
        .set("message", Json::string("open the link mailed to your address, then sign in"));
    auto response = http::Response::json(201, answer);
    response.header("Cache-Control", "no-store");
    give_device_cookie(app, request, response, *user);
    return response;
  }
  auto response = token_response(app, request, 201, *user, std::move(shown));
  give_device_cookie(app, request, response, *user);
  return response;
}

}  // namespace authd::handlers
