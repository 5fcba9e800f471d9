// Token revocation (RFC 7009) and introspection (RFC 7662) of authd as
// OpenID provider:
//   POST /revoke      application/x-www-form-urlencoded token[&token_type_hint]
//     client authentication as at /token (client_secret_basic,
//     client_secret_post, or none: a public client revokes its own tokens).
//     A refresh token of the calling client: its whole family ends. An access
//     token of the calling client: its jti goes on the revocation list until
//     its exp (lib/accounts/revocation.cpp), so /userinfo refuses it and
//     introspection says inactive. Anything else (another client's token,
//     unknown, expired, garbage): nothing happens. Always 200 with an empty
//     body once the client is authenticated (§2.2: no oracle).
//   POST /introspect  application/x-www-form-urlencoded token[&token_type_hint]
//     confidential clients only (client_secret_basic, client_secret_post).
//     A client introspects the tokens issued to it, a client named in
//     oidc_introspection_clients (a resource server) every client's; any
//     other token is {"active":false}, as is anything expired, revoked, malformed, of a
//     removed client, of a deleted or re-created user, or of a user whose
//     sessions ended (sign-out everywhere, password change, an operator's
//     sign-out). Active: active, scope, client_id, username, token_type, exp,
//     iat, sub, aud, iss (and jti for access tokens).
// A service client's own access token (client_credentials: sub "client:<id>")
// is revoked and introspected by that client (or a resource server of
// oidc_introspection_clients) the same way; its username and sub are
// "client:<id>", its aud token_audience.
// token_type_hint (access_token, refresh_token) only orders the look-up;
// any other value is ignored (RFC 7009 §2.1, RFC 7662 §2.1).
#include "authd/clock.hpp"
#include "authd/refresh.hpp"
#include "api/audit_request.hpp"
#include "api/oidc/client_auth.hpp"
#include "api/oidc/oidc.hpp"
#include "api/oidc/routes.hpp"
#include "http/query.hpp"

namespace authd::handlers {
namespace {

using oidc::authenticate_client;
using oidc::Form;
using oidc::param;
using oidc::refused;

// Errors that mean "not a live token" (an answer), not a failure of authd.
bool not_a_token(const Error& error) {
  return error.code == Errc::invalid_token || error.code == Errc::malformed_credentials ||
         error.code == Errc::no_credentials;
}

std::string claim(const TokenClaims& claims, std::string_view name) {
  const auto found = claims.extra.find(name);
  return found == claims.extra.end() ? std::string() : found->second;
}

// A live access token issued to an OpenID client: checked as /userinfo
// checks it (signature, exp, user re-read, revocation, generation). nullopt
// when it is none of that. `of_client`: the token must be that client's (the
// caller, which just authenticated: registered); "" takes any client's that
// is still registered (a resource server introspecting).
Result<std::optional<Principal>> live_access_token(App& app, std::string_view token, std::int64_t now,
                                                   std::string_view of_client) {
  if (token.find_first_of(" \t,") != std::string_view::npos) return std::nullopt;
  const std::string authorization = "Bearer " + std::string(token);
  auto principal = app.core->guard().check_client_token(authorization, now);
  if (!principal && principal.error().code == Errc::invalid_token) {
    // A service client's own token is a session token of no user: the
    // guard re-reads its client (removed, or no longer of the grant: inactive).
    auto service = app.core->guard().check(authorization, std::nullopt, now);
    if (service && is_service_subject(service->claims().subject)) principal = std::move(service);
  }
  if (!principal) {
    if (not_a_token(principal.error())) return std::nullopt;
    return std::unexpected(principal.error());
  }
  if (!of_client.empty()) {
    if (claim(principal->claims(), kClientIdClaim) != of_client) return std::nullopt;
  } else if (auto live = oidc::client_still_registered(app, principal->claims()); !live) {
    if (not_a_token(live.error())) return std::nullopt;
    return std::unexpected(live.error());
  }
  return std::optional<Principal>(std::move(*principal));
}

http::Response no_store(http::Response response) {
  response.header("Cache-Control", "no-store").header("Pragma", "no-cache");
  return response;
}

// The token named by the form, the hint's kind first.
struct Looked {
  std::string token;
  bool refresh_first = false;
};

std::expected<Looked, oidc::Refusal> token_of(const Form& form) {
  Looked looked{param(form, "token"), param(form, "token_type_hint") == "refresh_token"};
  if (looked.token.empty()) return std::unexpected(oidc::Refusal{400, "invalid_request", "token is required"});
  return looked;
}

// RFC 7009: ends what the token is, if it is the caller's.
Result<void> revoke_token(App& app, const http::Request& request, const OidcClient& client, const Looked& looked) {
  const auto now = unix_now();
  auto refresh = [&]() -> Result<bool> {
    auto ended = app.core->refresh().revoke_for_client(looked.token, client.id);
    if (ended && *ended) {
      audit(app, request, {.event = "oidc_token_revoked", .username = "", .outcome = "ok",
                           .reason = "refresh family of client " + client.id});
    }
    return ended;
  };
  auto access = [&]() -> Result<bool> {
    auto live = live_access_token(app, looked.token, now, client.id);
    if (!live) return std::unexpected(live.error());
    if (!*live) return false;
    TokenClaims until = (*live)->claims();
    until.expires_at += app.core->settings().token.leeway.count();
    auto done = is_service_subject(until.subject) ? app.core->revocation().revoke_listed(until)
                                                  : app.core->revocation().revoke((*live)->user().username, until, now);
    if (!done) return std::unexpected(done.error());
    audit(app, request, {.event = "oidc_token_revoked", .username = (*live)->user().username, .outcome = "ok",
                         .reason = "access token of client " + client.id});
    return true;
  };
  auto first = looked.refresh_first ? refresh() : access();
  if (!first) return std::unexpected(first.error());
  if (*first) return {};
  auto second = looked.refresh_first ? access() : refresh();
  if (!second) return std::unexpected(second.error());
  return {};
}

Json inactive() {
  Json body = Json::object();
  body.set("active", Json::boolean(false));
  return body;
}

// RFC 7662 §2.2: what an active token of `client` (of any client, for a
// resource server of oidc_introspection_clients) is; inactive otherwise.
Result<Json> introspect_token(App& app, const http::Request& request, const OidcClient& client, const Looked& looked) {
  const auto now = unix_now();
  const bool every_client = oidc::has_word(app.core->settings().oidc.introspection_clients, client.id);
  auto refresh = [&]() -> Result<std::optional<Json>> {
    auto info = app.core->refresh().inspect(looked.token, now);
    if (!info) {
      if (info.error().code == Errc::invalid_token) return std::nullopt;
      return std::unexpected(info.error());
    }
    if (info->client_id.empty()) return std::nullopt;  // authd's own session: no client's
    // Its user as the directory has them now (a directory user locked,
    // disabled or gone: inactive), as an access token's user is judged.
    if (auto role = app.core->guard().current_role(info->user, now); !role) {
      if (role.error().code == Errc::invalid_token) return Json(inactive());
      return std::unexpected(role.error());
    }
    // A removed client's families ended with it (end_client_families).
    if (info->client_id != client.id && !every_client) return Json(inactive());
    Json body = Json::object();
    body.set("active", Json::boolean(true))
        .set("scope", Json::string(info->scope))
        .set("client_id", Json::string(info->client_id))
        .set("username", Json::string(info->user.username))
        .set("token_type", Json::string("refresh_token"))
        .set("exp", Json::integer(info->expires_at))
        .set("iat", Json::integer(info->started_at))
        .set("sub", Json::string(info->user.id))
        .set("aud", Json::string(info->client_id))
        .set("iss", Json::string(oidc::issuer(app, request)));
    return std::optional<Json>(std::move(body));
  };
  auto access = [&]() -> Result<std::optional<Json>> {
    auto live = live_access_token(app, looked.token, now, every_client ? std::string_view() : client.id);
    if (!live) return std::unexpected(live.error());
    if (!*live) return std::nullopt;
    const auto& claims = (*live)->claims();
    const std::string issued_to = claim(claims, kClientIdClaim);
    Json body = Json::object();
    body.set("active", Json::boolean(true))
        .set("scope", Json::string(claim(claims, "scope")))
        .set("client_id", Json::string(issued_to))
        .set("username", Json::string((*live)->user().username))
        .set("token_type", Json::string("Bearer"))
        .set("exp", Json::integer(claims.expires_at))
        .set("iat", Json::integer(claims.issued_at))
        .set("sub", Json::string(claims.subject))
        .set("aud", Json::string(is_service_subject(claims.subject) ? app.core->tokens().policy().audience : issued_to))
        .set("iss", Json::string(app.core->tokens().policy().issuer))
        .set("jti", Json::string(claims.token_id));
    return std::optional<Json>(std::move(body));
  };
  auto first = looked.refresh_first ? refresh() : access();
  if (!first) return std::unexpected(first.error());
  if (*first) return std::move(**first);
  auto second = looked.refresh_first ? access() : refresh();
  if (!second) return std::unexpected(second.error());
  if (*second) return std::move(**second);
  return inactive();
}

}  // namespace

HandlerResult oidc_revoke(App& app, const http::Request& request, const RouteContext&) {
  if (auto on = oidc::require_provider(app); !on) return std::unexpected(on.error());
  const Form form = http::parse_query(request.body);
  auto caller = authenticate_client(app, request, form);
  if (!caller) return refused(caller.error());
  auto looked = token_of(form);
  if (!looked) return refused(looked.error());
  if (auto done = revoke_token(app, request, caller->client, *looked); !done) return std::unexpected(done.error());
  http::Response response;
  response.status = 200;
  return no_store(std::move(response));
}

HandlerResult oidc_introspect(App& app, const http::Request& request, const RouteContext&) {
  if (auto on = oidc::require_provider(app); !on) return std::unexpected(on.error());
  const Form form = http::parse_query(request.body);
  auto caller = authenticate_client(app, request, form);
  if (!caller) return refused(caller.error());
  if (caller->client.is_public) {
    audit(app, request, {.event = "oidc_client_auth_failed", .username = caller->client.id, .outcome = "refused",
                         .reason = "a public client at /introspect"});
    return refused({401, "invalid_client", "a public client cannot introspect", caller->basic});
  }
  auto looked = token_of(form);
  if (!looked) return refused(looked.error());
  auto body = introspect_token(app, request, caller->client, *looked);
  if (!body) return std::unexpected(body.error());
  return no_store(http::Response::json(200, *body));
}

}  // namespace authd::handlers
