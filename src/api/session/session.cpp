// The signed-in user's own routes (bearer token or the pages' `auth` cookie):
//   POST /signout       revokes this token (jti until exp) and ends its refresh
//                       family (the token's `sid`), clears the cookies -> 204
//   POST /signout/all   ends every token of the user (generation + 1)         -> 204
//   GET  /me            {"username","role","capabilities":[...],"providers":[...]}
//   PUT  /me/password   {"current_password","new_password"} -> 200 like sign-in,
//                       every other token of the user ends; throttled like sign-in.
#include "authd/clock.hpp"
#include "api/audit_request.hpp"
#include "api/json_body.hpp"
#include "api/security_notices.hpp"
#include "api/session/routes.hpp"
#include "api/session/session_answers.hpp"
#include "http/query.hpp"
#include "program/log.hpp"

namespace authd::handlers {
namespace {

http::Response signed_out(const App& app, const http::Request& request) {
  http::Response response;
  response.status = 204;
  response.header("Set-Cookie", expired_cookie(app, request, "auth", "/"));
  if (app.core->settings().refresh.ttl.count() > 0) {
    response.header("Set-Cookie", expired_cookie(app, request, "refresh", kRefreshCookiePath));
  }
  response.header("Cache-Control", "no-store");
  return response;
}

Result<std::string> required_string(const Json& body, std::string_view field) {
  if (!body.has(field)) return fail_field(std::string(field), std::string(field) + " is required");
  const auto value = body.get_string(field);
  if (!value) return fail_field(std::string(field), std::string(field) + " must be a string");
  return std::string(*value);
}

}  // namespace

HandlerResult signout(App& app, const http::Request& request, const RouteContext& context) {
  const Principal& who = *context.principal;
  // The session's refresh family ends too: the token names it (`sid`), since
  // the `refresh` cookie (Path=/token/refresh) never reaches /signout. First, so that a
  // family that cannot be ended fails the sign-out while the token still works
  // for a retry.
  std::string reason = "this token";
  if (const auto sid = who.claims().extra.find(kRefreshFamilyClaim); sid != who.claims().extra.end()) {
    if (auto ended = app.core->refresh().end_family(who.user().id, sid->second); !ended) {
      return std::unexpected(ended.error());
    }
    reason = "this token and its refresh family";
  }
  TokenClaims until = who.claims();
  until.expires_at += app.core->settings().token.leeway.count();  // as long as it would verify
  if (auto done = app.core->revocation().revoke(who.user().username, until, unix_now()); !done) {
    return std::unexpected(done.error());
  }
  audit(app, request, {.event = "signout", .username = who.user().username, .outcome = "ok", .reason = reason});
  return signed_out(app, request);
}

HandlerResult signout_all(App& app, const http::Request& request, const RouteContext& context) {
  if (auto done = app.core->revocation().end_all(context.principal->user().username); !done) {
    return std::unexpected(done.error());
  }
  if (auto ended = app.core->refresh().end_user(context.principal->user().id); !ended) {
    log::warn("cannot end the refresh tokens of a user: " + ended.error().message);
  }
  audit(app, request,
        {.event = "signout", .username = context.principal->user().username, .outcome = "ok", .reason = "every session"});
  return signed_out(app, request);
}

HandlerResult me(App& app, const http::Request&, const RouteContext& context) {
  const User& user = context.principal->user();
  Json capabilities = Json::array();
  for (auto capability : capabilities_of(user.role)) capabilities.append(Json::string(to_string(capability)));
  Json providers = Json::array();
  for (const auto& link : user.links) {
    const auto provider = std::string_view(link).substr(0, link.find(':'));
    bool seen = false;
    for (std::size_t i = 0; i < providers.size(); ++i) seen = seen || providers.at(i).as_string() == provider;
    if (!seen) providers.append(Json::string(provider));
  }
  Json body = Json::object();
  body.set("username", Json::string(user.username))
      .set("role", Json::string(to_string(user.role)))
      .set("capabilities", std::move(capabilities))
      .set("providers", std::move(providers))
      .set("email", Json::string(user.email))
      .set("email_verified", Json::boolean(user.email_verified));
  // An address given through PUT /me/email and not verified yet.
  if (auto pending = app.core->email_verification().pending_change(user, unix_now()); pending && !pending->empty()) {
    body.set("email_pending", Json::string(*pending));
  }
  auto response = http::Response::json(200, body);
  response.header("Cache-Control", "no-store");
  return response;
}

HandlerResult change_password(App& app, const http::Request& request, const RouteContext& context) {
  auto body = parse_json_body(app, request);
  if (!body) return std::unexpected(body.error());
  if (!body->is_object()) return fail(Errc::invalid_input, "request body must be a JSON object");
  auto current = required_string(*body, "current_password");
  if (!current) return std::unexpected(current.error());
  auto next = required_string(*body, "new_password");
  if (!next) return std::unexpected(next.error());

  const std::string username = context.principal->user().username;
  const auto now = unix_now();
  auto& throttle = app.core->throttle();
  if (auto allowed = throttle.check(username, request.remote_addr, now); !allowed) return std::unexpected(allowed.error());
  auto user = app.core->accounts().change_password(username, *current, *next);
  if (!user) {
    if (user.error().code == Errc::invalid_login) {
      audit(app, request, {.event = "password_change_failed", .username = username, .outcome = "refused",
                           .reason = "wrong current password"});
      if (auto counted = throttle.record_failure(username, request.remote_addr, now); !counted) {
        log::warn("cannot count a failed password check: " + counted.error().message);
      }
    }
    return std::unexpected(user.error());
  }
  after_password_change(app.core->refresh(), app.core->store(), app.core->settings().mail, app.core->mail_templates(),
                        app.core->events(), *user, unix_now());
  audit(app, request, {.event = "password_changed", .username = user->username, .outcome = "ok",
                       .reason = "every other token ended"});
  Json shown = Json::object();
  shown.set("acl", Json::array()).set("username", Json::string(user->username));
  // The new token keeps how this session authenticated (a second factor stays shown).
  const auto amr = context.principal->claims().extra.find(kAmrClaim);
  return token_response(app, request, 200, *user, std::move(shown),
                        amr == context.principal->claims().extra.end() ? std::string_view() : amr->second);
}

}  // namespace authd::handlers
