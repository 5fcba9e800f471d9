// One function per route; each returns a Response or an Error that the
// router (routes.cpp) answers with http::error_response (http/error_mapping.cpp).
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "app.hpp"
#include "authd/audit.hpp"
#include "authd/guard.hpp"
#include "authd/sign_in.hpp"
#include "http/request.hpp"
#include "http/response.hpp"

namespace authd::handlers {

// What the router found: the {id} path segment (if any) and, on guarded
// routes, the authenticated principal.
struct RouteContext {
  std::string_view id;
  const Principal* principal = nullptr;
};

using HandlerResult = Result<http::Response>;

HandlerResult signup(App& app, const http::Request& request, const RouteContext& context);
// The user object of the sign-up answer (the spec's shape: __v, _id, acl,
// password (the stored hash), role, username).
Json signup_user_json(const User& user);
// Invitations (invitations.cpp): POST|GET /admin/invitations, DELETE
// /admin/invitations/{id}, and POST /signup/invitation (the invitee's sign-up).
HandlerResult admin_create_invitation(App& app, const http::Request& request, const RouteContext& context);
HandlerResult admin_list_invitations(App& app, const http::Request& request, const RouteContext& context);
HandlerResult admin_revoke_invitation(App& app, const http::Request& request, const RouteContext& context);
HandlerResult accept_invitation(App& app, const http::Request& request, const RouteContext& context);
HandlerResult signin(App& app, const http::Request& request, const RouteContext& context);
HandlerResult oauth(App& app, const http::Request& request, const RouteContext& context);
HandlerResult auth_check(App& app, const http::Request& request, const RouteContext& context);
// The FastCGI Authorizer role (FCGI_ROLE=AUTHORIZER), whatever the path.
HandlerResult authorizer(App& app, const http::Request& request, const RouteContext& context);
// For the sign-in portal (www/login.html): its provider buttons and its way back.
HandlerResult auth_providers(App& app, const http::Request& request, const RouteContext& context);
HandlerResult return_to(App& app, const http::Request& request, const RouteContext& context);
HandlerResult portal_redirect(App& app, const http::Request& request, const RouteContext& context);

// The token lifecycle (session.cpp, refresh.cpp).
HandlerResult signout(App& app, const http::Request& request, const RouteContext& context);
HandlerResult signout_all(App& app, const http::Request& request, const RouteContext& context);
HandlerResult me(App& app, const http::Request& request, const RouteContext& context);
HandlerResult change_password(App& app, const http::Request& request, const RouteContext& context);
// Password reset by mail (password_reset.cpp): POST /password/forgot, POST /password/reset.
HandlerResult password_forgot(App& app, const http::Request& request, const RouteContext& context);
HandlerResult password_reset(App& app, const http::Request& request, const RouteContext& context);
// Verified email (email_verify.cpp): GET /email/verify (the mailed link), POST /email/verify,
// POST /email/verify/resend, PUT /me/email.
HandlerResult email_verify_link(App& app, const http::Request& request, const RouteContext& context);
HandlerResult email_verify(App& app, const http::Request& request, const RouteContext& context);
HandlerResult email_verify_resend(App& app, const http::Request& request, const RouteContext& context);
HandlerResult change_email(App& app, const http::Request& request, const RouteContext& context);
// A security notice (password_changed, mfa_added, mfa_removed) to `user`'s
// verified address when its notify_* setting is on (tell_user: a queued one
// wakes the mail sender, a failure is logged, through the core's events).
void notify(App& app, const User& user, std::string_view kind);
HandlerResult jwks(App& app, const http::Request& request, const RouteContext& context);
// GET /openapi.json (openapi.cpp).
HandlerResult openapi_document(App& app, const http::Request& request, const RouteContext& context);
HandlerResult openid_configuration(App& app, const http::Request& request, const RouteContext& context);
HandlerResult token_refresh(App& app, const http::Request& request, const RouteContext& context);

HandlerResult list_records(App& app, const http::Request& request, const RouteContext& context);
HandlerResult get_record(App& app, const http::Request& request, const RouteContext& context);
HandlerResult create_record(App& app, const http::Request& request, const RouteContext& context);
HandlerResult update_record(App& app, const http::Request& request, const RouteContext& context);
HandlerResult delete_record(App& app, const http::Request& request, const RouteContext& context);

// Operations: health, metrics (metrics_allow only), user administration (role admin).
HandlerResult healthz(App& app, const http::Request& request, const RouteContext& context);
HandlerResult readyz(App& app, const http::Request& request, const RouteContext& context);
HandlerResult metrics_text(App& app, const http::Request& request, const RouteContext& context);
HandlerResult admin_list_users(App& app, const http::Request& request, const RouteContext& context);
HandlerResult admin_get_user(App& app, const http::Request& request, const RouteContext& context);
HandlerResult admin_set_role(App& app, const http::Request& request, const RouteContext& context);
HandlerResult admin_delete_user(App& app, const http::Request& request, const RouteContext& context);
HandlerResult admin_sign_out_user(App& app, const http::Request& request, const RouteContext& context);
// OpenID Connect clients (admin_clients.cpp).
HandlerResult admin_list_clients(App& app, const http::Request& request, const RouteContext& context);
HandlerResult admin_add_client(App& app, const http::Request& request, const RouteContext& context);
HandlerResult admin_get_client(App& app, const http::Request& request, const RouteContext& context);
HandlerResult admin_remove_client(App& app, const http::Request& request, const RouteContext& context);
HandlerResult admin_rotate_client_secret(App& app, const http::Request& request, const RouteContext& context);
// authd as OpenID provider (oidc_*.cpp): GET /authorize, POST /authorize/consent,
// POST /token, GET|POST /userinfo, GET /end_session.
HandlerResult oidc_authorize(App& app, const http::Request& request, const RouteContext& context);
HandlerResult oidc_consent(App& app, const http::Request& request, const RouteContext& context);
HandlerResult oidc_token(App& app, const http::Request& request, const RouteContext& context);
HandlerResult oidc_userinfo(App& app, const http::Request& request, const RouteContext& context);
HandlerResult oidc_end_session(App& app, const http::Request& request, const RouteContext& context);
// The user's consents (oidc_my_clients.cpp): GET /me/clients, DELETE /me/clients/{id}.
HandlerResult my_clients(App& app, const http::Request& request, const RouteContext& context);
HandlerResult revoke_my_client(App& app, const http::Request& request, const RouteContext& context);

// Records `event` in the audit log with the request's client address and
// X-Request-Id filled in. One line per event, e.g.
//   audit(app, request, {.event = "signout", .username = user.username, .outcome = "ok"});
void audit(const App& app, const http::Request& request, AuditEvent event);

// The answer of every successful sign-in (password or third party): the
// token as cookie `auth`, header `token` and body field `token`. `amr`: how
// the user authenticated when a second factor was used ("pwd otp", ...).
http::Response token_response(const App& app, const http::Request& request, int status, const User& user,
                              Json user_body, std::string_view amr = {});

// A new session for `user`: an access token and, with refresh_token_ttl, a new
// refresh family that the token names (`sid`, so that POST /signout ends it).
struct Session {
  std::string token;
  std::vector<std::string> cookies;  // Set-Cookie values: auth, then refresh (if any)
};
Session start_session(const App& app, const http::Request& request, const User& user, std::string_view amr);
// The cookies of a session the sign-in use case issued at `now`.
Session session_cookies(const App& app, const http::Request& request, IssuedSession issued, std::int64_t now);

// The sign-in use case (authd/sign_in.hpp) reporting to authd's counters, log
// and mail sender (sign_in_answer.cpp); what it needs of `request`; and its
// outcome as HTTP: 200 {token, user:{acl, username}} with the session's
// cookies (and the device cookie when it gives one), or the 401 MFA Required
// challenge.
SignIn sign_in_of(const App& app);
SignInClient sign_in_client(const http::Request& request);
HandlerResult sign_in_answer(const App& app, const http::Request& request, Result<SignInOutcome> outcome);
// Adds a new device cookie (authd_device) for `user` to `response` (sign-up).
void give_device_cookie(const App& app, const http::Request& request, http::Response& response, const User& user);
// Sets the session's cookies, header `token` and Cache-Control: no-store on `response`.
void attach_session(http::Response& response, Session session);

// Second factor (mfa.cpp). The user's own factors:
//   GET /me/mfa, POST /me/mfa/totp, POST /me/mfa/totp/confirm, DELETE /me/mfa/totp
HandlerResult mfa_status(App& app, const http::Request& request, const RouteContext& context);
HandlerResult mfa_totp_begin(App& app, const http::Request& request, const RouteContext& context);
HandlerResult mfa_totp_confirm(App& app, const http::Request& request, const RouteContext& context);
HandlerResult mfa_totp_remove(App& app, const http::Request& request, const RouteContext& context);
// POST /signin/mfa {"mfa_token","code"} or {"mfa_token","webauthn"}: the second step of a sign-in.
HandlerResult signin_mfa(App& app, const http::Request& request, const RouteContext& context);
// Passkeys (passkeys.cpp): registration and removal by the signed-in user,
// the options of a second-factor assertion, password-less sign-in.
HandlerResult passkey_register_begin(App& app, const http::Request& request, const RouteContext& context);
HandlerResult passkey_register_finish(App& app, const http::Request& request, const RouteContext& context);
HandlerResult passkey_remove(App& app, const http::Request& request, const RouteContext& context);
HandlerResult signin_mfa_webauthn_begin(App& app, const http::Request& request, const RouteContext& context);
HandlerResult passkey_signin_status(App& app, const http::Request& request, const RouteContext& context);
HandlerResult passkey_signin_begin(App& app, const http::Request& request, const RouteContext& context);
HandlerResult passkey_signin_finish(App& app, const http::Request& request, const RouteContext& context);
// After a first factor (`first`: "pwd"): the mfa_challenge error
// (401 MFA Required + mfa_token) when `user` has an active factor, else ok.
Result<void> ask_second_factor(App& app, const http::Request& request, const User& user, std::string_view first);
// Changing second factors (factor_change.cpp). Once `context`'s user has an
// active factor, a change needs a token whose amr shows a second factor or
// body member "second_factor" (a current TOTP or recovery code, spent).
// Errors: mfa_required (403), mfa_failed (wrong code), throttled.
Result<void> allow_factor_change(App& app, const http::Request& request, const RouteContext& context, const Json& body);
// After a factor was added or removed: ends every token and refresh family of
// the user and gives this session a new token (cookie `auth`, header
// `token`, a new refresh cookie when refresh tokens are on) with its amr.
Result<http::Response> end_other_sessions(App& app, const http::Request& request, const RouteContext& context,
                                          http::Response response);
// The JSON body, or an empty object when the request has none.
Result<Json> optional_json_body(const App& app, const http::Request& request);
// The mailing requests open to anyone, POST /password/forgot and POST
// /email/verify/resend (mailing_request.cpp), once their body is read:
// `admitted`, one more request from the client address (past the hourly limit
// 429, audited as `event` refused), then `ask`, the request itself (what
// happened, for the audit log, and the account's name; a storage error is
// logged after `what` and answered 503), a queued mail sent on, the outcome
// audited as `event`, and 202 {"message": answer}, no-store, sent no earlier
// than `started` + password_forgot_time: the one answer whatever happened
// (nothing told by content or time).
struct MailingRequest {
  std::string_view event;
  std::string_view what;
  std::string_view answer;
  std::chrono::steady_clock::time_point started;
};
HandlerResult answer_mailing_request(App& app, const http::Request& request, const MailingRequest& mailing,
                                     Result<void> admitted,
                                     const std::function<Result<MailOutcome>(std::string& found_username)>& ask);
// A string member of a JSON body. Error: invalid_input naming the field.
Result<std::string> required_field(const Json& body, std::string_view field);

// The Set-Cookie value of an access token (auth, Path=/, HttpOnly, SameSite=Lax).
std::string auth_cookie(const App& app, const http::Request& request, std::string_view token);

// The Set-Cookie value of a refresh token (HttpOnly, Path=/token/refresh)
// that lives `max_age` seconds (its family's remaining life).
std::string refresh_cookie(const App& app, const http::Request& request, std::string_view refresh_token,
                           std::int64_t max_age);

// A Set-Cookie value that deletes cookie `name` at `path`.
std::string expired_cookie(const App& app, const http::Request& request, std::string_view name, std::string_view path);

// Whether cookies get the Secure attribute (cookie_secure, or HTTPS when auto).
bool secure_cookies(const App& app, const http::Request& request);

// The request body as a JSON value, within the configured depth.
Result<Json> parse_json_body(const App& app, const http::Request& request);

}  // namespace authd::handlers
