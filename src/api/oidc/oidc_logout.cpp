// RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0):
//   GET /end_session?id_token_hint=<an ID token authd issued>
//        [&post_logout_redirect_uri=<registered for the client>][&state][&client_id]
//   ends the browser's authd session (its token revoked, its refresh family
//   ended, cookies cleared) when it is the hint's user, then 302 to the
//   post-logout URI (with state) or 200 {"signed_out": true}.
// The hint is required: a GET from any page could otherwise sign users out
// (logout CSRF). An unregistered post_logout_redirect_uri is never followed.
// The cookies are cleared unless the browser holds a live session of another
// user than the hint's: a hint of anyone else (an attacker's own ID token, in
// a cross-site link) changes no live session's cookie. Without a live `auth`
// cookie (none, or lapsed) they are cleared, so that a lapsed session's
// `refresh` cookie cannot bring it back after the user signed out.
#include "authd/clock.hpp"
#include "authd/id_token.hpp"
#include "authd/jws.hpp"
#include "api/audit_request.hpp"
#include "api/oidc/routes.hpp"
#include "api/session/session_answers.hpp"
#include "api/oidc/oidc.hpp"
#include "http/query.hpp"
#include "program/log.hpp"

namespace authd::handlers {
namespace {

using oidc::param;

// What the browser's `auth` cookie was to the hint's user.
enum class BrowserSession {
  ended,       // the hint's user's session: ended now
  none,        // no live session (no cookie, or lapsed, revoked, malformed)
  other_user,  // a live session of someone else: left alone
};

// Ends the session of the `auth` cookie when it belongs to `user_id`. (The
// `refresh` cookie, Path /token/refresh, never comes here: its family is
// ended through the auth cookie's `sid`; with no live auth cookie only the
// cookie itself can be cleared.)
Result<BrowserSession> end_session_of(App& app, const http::Request& request, std::string_view user_id) {
  const auto cookie = http::cookie_value(request.param("HTTP_COOKIE"), "auth");
  if (cookie.empty()) return BrowserSession::none;
  auto principal = app.core->guard().check_for_enrolment("Bearer " + std::string(cookie), unix_now());
  if (!principal) return BrowserSession::none;
  if (principal->user().id != user_id) return BrowserSession::other_user;
  if (const auto sid = principal->claims().extra.find(kRefreshFamilyClaim); sid != principal->claims().extra.end()) {
    if (auto ended = app.core->refresh().end_family(principal->user().id, sid->second); !ended) {
      return std::unexpected(ended.error());
    }
  }
  TokenClaims until = principal->claims();
  until.expires_at += app.core->settings().token.leeway.count();
  if (auto done = app.core->revocation().revoke(principal->user().username, until, unix_now()); !done) {
    return std::unexpected(done.error());
  }
  audit(app, request, {.event = "signout", .username = principal->user().username, .outcome = "ok",
                       .reason = "RP-initiated logout"});
  return BrowserSession::ended;
}

}  // namespace

HandlerResult oidc_end_session(App& app, const http::Request& request, const RouteContext&) {
  if (auto on = oidc::require_provider(app); !on) return std::unexpected(on.error());
  const auto query = http::parse_query(request.query);
  const auto hint = param(query, "id_token_hint");
  if (hint.empty()) return fail_field("id_token_hint", "id_token_hint is required");
  auto claims = verify_id_token_hint(*app.core->id_token_keys(), hint, oidc::issuer(app, request), unix_now());
  if (!claims) return fail_field("id_token_hint", "id_token_hint is not an ID token of this provider");
  const std::string client_id(claims->get_string("aud").value_or(""));
  if (query.contains("client_id") && param(query, "client_id") != client_id) {
    return fail_field("client_id", "client_id is not the hint's audience");
  }
  const auto target = param(query, "post_logout_redirect_uri");
  if (!target.empty()) {
    auto client = app.core->oidc_clients().find(client_id);
    if (!client) return fail_field("id_token_hint", "the hint's client is not registered");
    if (!has_post_logout_uri(*client, target)) {
      return fail_field("post_logout_redirect_uri", "post_logout_redirect_uri is not registered for this client");
    }
  }
  auto ended = end_session_of(app, request, claims->get_string("sub").value_or(""));
  if (!ended) return std::unexpected(ended.error());

  http::Response response;
  if (!target.empty()) {
    std::vector<std::pair<std::string, std::string>> params;
    if (query.contains("state")) params.emplace_back("state", param(query, "state"));
    response = oidc::redirect(oidc::with_query(target, params));
  } else {
    Json body = Json::object();
    body.set("signed_out", Json::boolean(true));
    response = http::Response::json(200, body);
    oidc::page_headers(response);
  }
  if (*ended == BrowserSession::other_user) return response;
  response.header("Set-Cookie", expired_cookie(app, request, "auth", "/"));
  if (app.core->settings().refresh.ttl.count() > 0) {
    response.header("Set-Cookie", expired_cookie(app, request, "refresh", kRefreshCookiePath));
  }
  return response;
}

}  // namespace authd::handlers
