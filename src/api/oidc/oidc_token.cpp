// The token endpoint of authd as OpenID provider (RFC 6749 §3.2, §4.1.3, §6;
// OpenID Connect Core 1.0 §3.1.3; RFC 7636 §4.6):
//   POST /token  application/x-www-form-urlencoded
//     grant_type=authorization_code&code&redirect_uri[&code_verifier]
//     grant_type=refresh_token&refresh_token
//     grant_type=urn:ietf:params:oauth:grant-type:device_code&device_code
//       (RFC 8628 §3.4: a device polling for what its user allowed at /device)
//     grant_type=client_credentials[&scope]  (RFC 6749 §4.4: a confidential
//       client registered with it; the token is the client's own, "client:<id>",
//       acting as its role at authd's guarded routes; scope: capability names)
//   client authentication: client_secret_basic, client_secret_post,
//   private_key_jwt, or none (public clients, PKCE instead). 200
//   {access_token, token_type, expires_in, scope[, id_token][, refresh_token]},
//   Cache-Control: no-store; errors as RFC 6749 §5.2
//   ({"error","error_description"}; invalid_client 401).
// Failed client authentication is audited, and a wrong secret throttled per
// client and caller address (authenticate_client, client_auth.cpp).
#include "authd/authorization.hpp"
#include "authd/authorization_codes.hpp"
#include "authd/clock.hpp"
#include "authd/device_authorizations.hpp"
#include "authd/id_token.hpp"
#include "authd/jws.hpp"
#include "authd/text.hpp"
#include "api/audit_request.hpp"
#include "api/oidc/client_auth.hpp"
#include "api/oidc/routes.hpp"
#include "api/oidc/oidc.hpp"
#include "http/query.hpp"
#include "program/log.hpp"

namespace authd::handlers {
namespace {

using oidc::Form;
using oidc::has_word;
using oidc::authenticate_client;
using oidc::refused;
using oidc::param;

// jti and exp of an access token authd just signed, and the refresh family's
// id (to revoke both on a code replay; no usable token is stored).
IssuedForCode issued_record(std::string_view access_token, std::string_view refresh_family) {
  IssuedForCode issued;
  issued.refresh_family = std::string(refresh_family);
  if (const auto parts = jws::split(access_token)) {
    if (auto payload = jws::decode_object(parts->payload, "payload", 4)) {
      issued.access_jti = std::string(payload->get_string("jti").value_or(""));
      issued.access_exp = payload->get_integer("exp").value_or(0);
    }
  }
  return issued;
}

void revoke_replayed(App& app, const http::Request& request, const CodeReplay& replay) {
  if (!replay.issued.refresh_family.empty()) {
    if (auto ended = app.core->refresh().end_family(replay.grant.user_id, replay.issued.refresh_family); !ended) {
      log::warn("cannot end the refresh family of a replayed code: " + ended.error().message);
    }
  }
  if (!replay.issued.access_jti.empty()) {
    TokenClaims claims;
    claims.subject = replay.grant.user_id;
    claims.username = replay.grant.username;
    claims.token_id = replay.issued.access_jti;
    claims.expires_at = replay.issued.access_exp + app.core->settings().token.leeway.count();
    if (auto done = app.core->revocation().revoke(replay.grant.username, claims, unix_now()); !done) {
      log::warn("cannot revoke the access token of a replayed code: " + done.error().message);
    }
  }
  audit(app, request, {.event = "oidc_code_replayed", .username = replay.grant.username, .outcome = "refused",
                       .reason = "client " + replay.grant.client_id + ": what the code issued is revoked"});
}

struct Tokens {
  std::string access_token, refresh_token, id_token, scope;
};

http::Response answer(const App& app, const Tokens& tokens) {
  Json body = Json::object();
  body.set("access_token", Json::string(tokens.access_token))
      .set("token_type", Json::string("Bearer"))
      .set("expires_in", Json::integer(app.core->settings().token.ttl.count()))
      .set("scope", Json::string(tokens.scope));
  if (!tokens.id_token.empty()) body.set("id_token", Json::string(tokens.id_token));
  if (!tokens.refresh_token.empty()) body.set("refresh_token", Json::string(tokens.refresh_token));
  auto response = http::Response::json(200, body);
  response.header("Cache-Control", "no-store").header("Pragma", "no-cache");
  return response;
}

// A client's access token: its audience (the client alone, never token_audience:
// no resource server takes it for the user's session), scope, and when the
// user signed in.
std::map<std::string, std::string, std::less<>> client_claims(const OidcClient& client, std::string_view scope,
                                                              std::int64_t auth_time) {
  return {{"aud", client.id},
          {std::string(kClientIdClaim), client.id},
          {"scope", std::string(scope)},
          {std::string(kAuthTimeClaim), std::to_string(auth_time)}};
}

// What a user allowed a client, by a code or on a device.
struct UserGrant {
  std::string scope, amr, nonce, sid;
  std::int64_t auth_time = 0;
};

// The tokens of `grant`: a refresh token with offline_access (while refresh
// tokens are on; its family in `family`), the access token, and with openid
// an ID token.
Result<Tokens> user_tokens(App& app, const http::Request& request, const OidcClient& client, const User& user,
                           const UserGrant& grant, std::int64_t now, std::string& family) {
  Tokens tokens;
  tokens.scope = grant.scope;
  if (has_word(grant.scope, "offline_access") && app.core->refresh().enabled()) {
    auto started = app.core->refresh().start(user, now, grant.amr, client.id, grant.scope, grant.auth_time);
    if (!started) return std::unexpected(started.error());
    tokens.refresh_token = started->refresh_token;
    family = started->family;
  }
  tokens.access_token = app.core->issue_access_token(user, grant.amr, family, client_claims(client, grant.scope, grant.auth_time));
  if (!has_word(grant.scope, "openid")) return tokens;
  auto id_token = sign_id_token(*app.core->id_token_keys(),
                                {.issuer = oidc::issuer(app, request),
                                 .subject = user.id,
                                 .audience = client.id,
                                 .nonce = grant.nonce,
                                 .amr = grant.amr,
                                 .auth_time = grant.auth_time,
                                 .access_token = tokens.access_token,
                                 .sid = grant.sid},
                                now);
  if (!id_token) return std::unexpected(id_token.error());
  tokens.id_token = std::move(*id_token);
  return tokens;
}

HandlerResult authorization_code(App& app, const http::Request& request, const Form& form, const OidcClient& client) {
  const auto now = unix_now();
  CodeReplay replay;
  AuthorizationCodes& codes = app.core->authorization_codes();
  const auto code = param(form, "code");
  auto grant = codes.redeem(code, now, &replay);
  if (!grant) {
    if (!replay.grant.client_id.empty()) revoke_replayed(app, request, replay);
    if (grant.error().code != Errc::invalid_token) return std::unexpected(grant.error());
    return refused({400, "invalid_grant", "the code is unknown, expired or used"});
  }
  if (grant->client_id != client.id) return refused({400, "invalid_grant", "the code was issued to another client"});
  if (param(form, "redirect_uri") != grant->redirect_uri) {
    return refused({400, "invalid_grant", "redirect_uri differs from the authorization request's"});
  }
  const auto verifier = param(form, "code_verifier");
  if (grant->code_challenge.empty() ? !verifier.empty() : !pkce_s256_matches(verifier, grant->code_challenge)) {
    return refused({400, "invalid_grant", "PKCE verification failed"});
  }
  auto user = app.core->accounts().find(grant->username);
  if (!user || user->id != grant->user_id) return refused({400, "invalid_grant", "the user is gone"});

  std::string family;
  auto tokens = user_tokens(app, request, client, *user,
                            {grant->scope, grant->amr, grant->nonce, grant->sid, grant->auth_time}, now, family);
  if (!tokens) return std::unexpected(tokens.error());
  if (auto noted = codes.record_issued(code, issued_record(tokens->access_token, family), now); !noted) {
    log::warn("cannot note what an authorization code issued: " + noted.error().message);
  }
  audit(app, request, {.event = "oidc_token", .username = user->username, .outcome = "ok",
                       .reason = "authorization_code for client " + client.id});
  return answer(app, *tokens);
}

// RFC 8628 §3.4, §3.5: the device's poll. Until the user decided at /device:
// authorization_pending, or slow_down when it polls sooner than the interval
// (which then grows by 5 s); then the tokens once, or access_denied;
// expired_token once the codes lapsed.
HandlerResult device_code_grant(App& app, const http::Request& request, const Form& form, const OidcClient& client) {
  if (!has_grant(client, kDeviceCodeGrant)) {
    return refused({400, "unauthorized_client", not_registered_for(kDeviceCodeGrant)});
  }
  const auto now = unix_now();
  auto poll = app.core->device_authorizations().poll(param(form, "device_code"), client.id, now);
  if (!poll) {
    if (poll.error().code != Errc::invalid_token) return std::unexpected(poll.error());
    return refused({400, "invalid_grant", "the device_code is unknown, used or another client's"});
  }
  switch (poll->state) {
    case DevicePollState::pending:
      return refused({400, "authorization_pending", "the user has not answered yet"});
    case DevicePollState::slow_down:
      return refused({400, "slow_down", "polled too often: wait 5 s more between polls"});
    case DevicePollState::denied:
      return refused({400, "access_denied", "the user did not allow it"});
    case DevicePollState::expired:
      return refused({400, "expired_token", "the device_code has expired: start again"});
    case DevicePollState::approved:
      break;
  }
  const auto& by = poll->approval;
  auto user = app.core->accounts().find(by.username);
  if (!user || user->id != by.user_id) return refused({400, "invalid_grant", "the user is gone"});
  std::string family;
  auto tokens = user_tokens(app, request, client, *user, {poll->request.scope, by.amr, "", "", by.auth_time}, now, family);
  if (!tokens) return std::unexpected(tokens.error());
  audit(app, request, {.event = "oidc_token", .username = user->username, .outcome = "ok",
                       .reason = "device_code for client " + client.id});
  return answer(app, *tokens);
}

HandlerResult refresh_grant(App& app, const http::Request& request, const Form& form, const OidcClient& client) {
  if (!app.core->refresh().enabled()) return refused({400, "unsupported_grant_type", "refresh tokens are off"});
  const auto now = unix_now();
  // A directory user the directory no longer lets in (locked, disabled,
  // gone) gets nothing, as their access tokens are refused.
  const auto admit = [&](const User& user) -> Result<void> {
    if (auto role = app.core->guard().current_role(user, now); !role) return std::unexpected(role.error());
    return {};
  };
  auto next = app.core->refresh().rotate(param(form, "refresh_token"), now, client.id, admit);
  if (!next) {
    if (next.error().code != Errc::invalid_token) return std::unexpected(next.error());
    return refused({400, "invalid_grant",
                    "the refresh token is unknown, expired, reused or another client's, or its user may not sign in now"});
  }
  Tokens tokens;
  tokens.scope = next->scope;
  tokens.refresh_token = next->refresh_token;
  tokens.access_token = app.core->issue_access_token(next->user, next->amr, next->family, client_claims(client, next->scope, next->authenticated_at));
  audit(app, request, {.event = "oidc_token", .username = next->user.username, .outcome = "ok",
                       .reason = "refresh_token for client " + client.id});
  return answer(app, tokens);
}

// RFC 6749 §4.4: the client's own token, as its role. `scope` names
// capabilities of the role (read create update delete): fewer than the role
// has narrows the token; none asks for all of them; any other is invalid_scope.
HandlerResult client_credentials(App& app, const http::Request& request, const Form& form, const OidcClient& client) {
  if (!has_grant(client, kClientCredentialsGrant) || !client.role || client.is_public) {
    return refused({400, "unauthorized_client", not_registered_for(kClientCredentialsGrant)});
  }
  const auto requested = param(form, "scope");
  for (const auto word : text::words(requested)) {
    const auto capability = parse_capability(word);
    if (!capability || !role_has(*client.role, *capability)) {
      return refused({400, "invalid_scope", "scope names capabilities of the client's role (" +
                                                std::string(to_string(*client.role)) + ")"});
    }
  }
  std::string scope;
  for (const auto capability : capabilities_of(*client.role)) {
    const auto name = to_string(capability);
    if (!requested.empty() && !has_word(requested, name)) continue;
    scope += (scope.empty() ? "" : " ") + std::string(name);
  }
  Tokens tokens;
  tokens.scope = scope;
  tokens.access_token = app.core->issue_service_token(client, scope, unix_now());
  audit(app, request, {.event = "oidc_token", .username = std::string(kServiceSubjectPrefix) + client.id,
                       .outcome = "ok", .reason = "client_credentials as role " + std::string(to_string(*client.role))});
  return answer(app, tokens);
}

}  // namespace

HandlerResult oidc_token(App& app, const http::Request& request, const RouteContext&) {
  if (auto on = oidc::require_provider(app); !on) return std::unexpected(on.error());
  const Form form = http::parse_query(request.body);
  const auto grant_type = param(form, "grant_type");
  if (grant_type.empty()) return refused({400, "invalid_request", "grant_type is required"});
  auto caller = authenticate_client(app, request, form);
  if (!caller) return refused(caller.error());
  if (grant_type == kClientCredentialsGrant) return client_credentials(app, request, form, caller->client);
  if (grant_type == kDeviceCodeGrant) return device_code_grant(app, request, form, caller->client);
  if (grant_type != "authorization_code" && grant_type != "refresh_token") {
    return refused({400, "unsupported_grant_type",
                    "grant_type must be authorization_code, refresh_token, client_credentials or "
                    "urn:ietf:params:oauth:grant-type:device_code"});
  }
  if (grant_type == "authorization_code") {
    if (!has_grant(caller->client, kAuthorizationCodeGrant)) {
      return refused({400, "unauthorized_client", not_registered_for(kAuthorizationCodeGrant)});
    }
    return authorization_code(app, request, form, caller->client);
  }
  // A refresh token comes from either grant that signs a person in (with
  // offline_access): a device's refreshes like a web application's (RFC 8628
  // §3.5). A service client never holds one.
  if (!has_grant(caller->client, kAuthorizationCodeGrant) && !has_grant(caller->client, kDeviceCodeGrant)) {
    return refused({400, "unauthorized_client", "the client is not registered for a grant that issues refresh tokens"});
  }
  return refresh_grant(app, request, form, caller->client);
}

}  // namespace authd::handlers
