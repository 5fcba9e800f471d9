// GET /oauth: third-party sign-in.
//   without `code`: start (302 to the provider, state + PKCE verifier, and
//                   the browser's device cookie, in a signed HttpOnly cookie);
//   with `code`:    complete (state checked against the cookie, code exchanged,
//                   identity verified, local account created or updated) and
//                   answer exactly like POST /signin (a device cookie too; a
//                   new device is told by mail, authd/sign_in.hpp);
//   with `error`:   the provider refused; nothing is created.
#include "authd/clock.hpp"
#include "authd/crypto.hpp"
#include "authd/oauth.hpp"
#include "api/audit_request.hpp"
#include "api/oauth/routes.hpp"
#include "api/session/session_answers.hpp"
#include "http/query.hpp"

namespace authd::handlers {
namespace {

constexpr std::string_view kStateCookie = "authd_oauth";

std::string state_cookie(const App& app, const http::Request& request, std::string_view value,
                         std::int64_t max_age) {
  // Below a base path (shared hosting) the browser must send it to <base>/oauth.
  std::string cookie = std::string(kStateCookie) + "=" + std::string(value) + "; Path=" + request.base_path +
                       "/oauth; Max-Age=" + std::to_string(max_age) + "; HttpOnly; SameSite=Lax";
  if (secure_cookies(app, request)) cookie += "; Secure";
  return cookie;
}

Result<OAuthClient*> choose_provider(App& app, const std::map<std::string, std::string, std::less<>>& query) {
  const auto named = query.find("provider");
  const auto& providers = app.core->settings().oauth.providers;
  if (named == query.end()) {
    if (providers.size() == 1) return app.core->oauth_client(providers.front().name);
    std::string names;
    for (const auto& provider : providers) names += (names.empty() ? "" : ", ") + provider.name;
    return fail(Errc::invalid_input, "several identity providers are configured; choose one with ?provider= (" + names + ")");
  }
  OAuthClient* found = app.core->oauth_client(named->second);
  if (!found) return fail(Errc::invalid_input, "unknown provider '" + named->second + "'");
  return found;
}

HandlerResult start(App& app, const http::Request& request,
                    const std::map<std::string, std::string, std::less<>>& query) {
  auto client = choose_provider(app, query);
  if (!client) return std::unexpected(client.error());
  const auto pkce = Pkce::generate();
  // The device cookie comes with this same-site request only: kept in the
  // state for the completion, which must know whether the device is new.
  const OAuthState state{(*client)->provider().name, crypto::random_token(16), pkce.verifier,
                         crypto::random_token(16), sign_in_client(request).device_token};
  auto location = (*client)->authorization_url(state, pkce.challenge);
  if (!location) return std::unexpected(location.error());

  const auto ttl = app.core->settings().oauth.state_ttl;
  const auto sealed = seal_oauth_state(app.core->tokens(), state, unix_now(), ttl);
  Json body = Json::object();
  body.set("location", Json::string(*location));
  auto response = http::Response::json(302, body);
  response.header("Location", *location)
      .header("Set-Cookie", state_cookie(app, request, sealed, ttl.count()))
      .header("Cache-Control", "no-store");
  return response;
}

HandlerResult complete(App& app, const http::Request& request,
                       const std::map<std::string, std::string, std::less<>>& query) {
  const auto now = unix_now();
  auto state = open_oauth_state(app.core->tokens(), http::cookie_value(request.param("HTTP_COOKIE"), kStateCookie), now);
  if (!state) return std::unexpected(state.error());
  const auto returned = query.find("state");
  if (returned == query.end() || !crypto::equal_constant_time(returned->second, state->state)) {
    return fail(Errc::provider_refused, "the state returned by the provider does not match this sign-in");
  }
  OAuthClient* client = app.core->oauth_client(state->provider);
  if (!client) return fail(Errc::provider_refused, "the sign-in's provider is no longer configured");

  auto identity = client->complete(query.find("code")->second, *state, now);
  if (!identity) return std::unexpected(identity.error());
  // The sign-in use case (lib/core/sign_in.cpp); a second factor asked
  // (mfa_for_oauth) comes back here as the error, so that it is audited below.
  SignInClient signing_in = sign_in_client(request);
  if (signing_in.device_token.empty()) signing_in.device_token = state->device;
  auto response = sign_in_answer(app, request, app.core->sign_in().with_provider(*identity, signing_in, now));
  if (response) response->header("Set-Cookie", state_cookie(app, request, "", 0));  // the state is spent
  return response;
}

}  // namespace

HandlerResult oauth(App& app, const http::Request& request, const RouteContext&) {
  if (!app.core->oauth_configured()) return fail(Errc::not_configured, "third-party sign-in is not configured");
  const auto query = http::parse_query(request.query);
  if (const auto error = query.find("error"); error != query.end()) {
    // RFC 6749 §4.1.2.1: the provider (or the user) refused.
    const auto description = query.find("error_description");
    std::string detail = "the identity provider answered " + error->second;
    if (description != query.end()) detail += ": " + description->second;
    audit(app, request, {.event = "oauth_failed", .outcome = "refused", .reason = "provider answered an error"});
    if (error->second == "access_denied") return fail(Errc::provider_refused, detail);
    return fail(Errc::invalid_input, detail);
  }
  if (query.contains("code")) {
    auto answer = complete(app, request, query);
    if (!answer) {
      // The error kind only: a provider's message may echo what it was sent.
      audit(app, request, {.event = "oauth_failed", .outcome = "failed",
                           .reason = std::string(to_string(answer.error().code))});
    }
    return answer;
  }
  return start(app, request, query);
}

}  // namespace authd::handlers
