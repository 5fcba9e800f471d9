// The authorization endpoint of authd as OpenID provider (OpenID Connect
// Core 1.0 §3.1.2, RFC 6749 §4.1, RFC 7636, RFC 9207):
//   GET  /authorize?response_type=code&client_id&redirect_uri&scope&state&nonce
//        &code_challenge&code_challenge_method=S256[&prompt][&max_age][&login_hint]
//        (login_hint pre-fills the sign-in form's username)
//        signed in (cookie `auth`) -> 302 redirect_uri?code&state&iss
//        not signed in -> 302 /login?rd=<this request> (prompt=none: login_required)
//        prompt=login, or a sign-in older than max_age -> 302
//        /login?rd=<this request>&prompt=login: the portal asks for the password
//        even over a session, which stays (no cookie changes here: a cross-site
//        link signs nobody out) until the new sign-in replaces it; the way back
//        carries signed_in_after=<now> instead of prompt, so only a sign-in
//        from then on passes
//        a client that is not first-party and not yet allowed -> the consent page
//        a bad client_id or redirect_uri -> 400, never a redirect to it: a page
//        for a browser (Accept: text/html), else JSON;
//        any other error -> 302 redirect_uri?error&error_description&state&iss
//   POST /authorize/consent  (form: request=<the authorization query>, decision=allow|deny)
//        records the consent (lib/oidc/consents.cpp) and sends the browser back
//        to /authorize; deny -> access_denied to the client. Both by a 200
//        page that refreshes to the address (oidc::continue_page: form-action).
#include <algorithm>
#include <charconv>

#include "authd/authorization_codes.hpp"
#include "authd/clock.hpp"
#include "authd/oidc_consents.hpp"
#include "authd/text.hpp"
#include "api/audit_request.hpp"
#include "api/oidc/routes.hpp"
#include "api/oidc/oidc.hpp"
#include "http/query.hpp"

namespace authd::handlers {
namespace {

// When the session's user last authenticated: its auth_time claim (kept across
// refreshes), or, for a token from before that claim, when it was issued.
std::int64_t authenticated_at(const TokenClaims& claims) {
  if (const auto found = claims.extra.find(kAuthTimeClaim); found != claims.extra.end()) {
    std::int64_t when = 0;
    const auto& text = found->second;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), when);
    if (ec == std::errc() && end == text.data() + text.size() && when > 0) return when;
  }
  return claims.issued_at;
}

using Query = std::map<std::string, std::string, std::less<>>;

// authd's own parameter on the way back from a fresh sign-in (prompt=login):
// the session must have signed in at or after this Unix time.
constexpr std::string_view kSignedInAfter = "signed_in_after";

// A non-negative integer parameter; nullopt when absent or malformed.
std::optional<std::int64_t> whole_number(const Query& query, std::string_view name) {
  const auto found = query.find(name);
  if (found == query.end()) return std::nullopt;
  std::int64_t value = -1;
  const auto& text = found->second;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 0) return std::nullopt;
  return value;
}
using oidc::has_word;
using oidc::param;

std::vector<std::string> split_words(std::string_view words) {
  std::vector<std::string> out;
  for (std::size_t from = 0; from < words.size();) {
    const auto end = std::min(words.find(' ', from), words.size());
    if (end > from) out.emplace_back(words.substr(from, end - from));
    from = end + 1;
  }
  return out;
}

// The client and redirect URI, checked before anything is sent to that URI
// (RFC 6749 §4.1.2.1: never redirect to an unverified URI). Error:
// invalid_input (400 JSON).
Result<OidcClient> trusted_client(App& app, const Query& query) {
  const auto client_id = param(query, "client_id");
  if (client_id.empty()) return fail_field("client_id", "client_id is required");
  auto client = app.core->oidc_clients().find(client_id);
  if (!client) {
    if (client.error().code == Errc::not_found) return fail_field("client_id", "unknown client_id");
    return std::unexpected(client.error());
  }
  // A service client (client_credentials alone) signs nobody in.
  if (!has_grant(*client, kAuthorizationCodeGrant)) {
    return fail_field("client_id", "the client is not registered for the authorization code grant");
  }
  const auto redirect_uri = param(query, "redirect_uri");
  if (redirect_uri.empty()) return fail_field("redirect_uri", "redirect_uri is required");
  if (!has_redirect_uri(*client, redirect_uri)) {
    return fail_field("redirect_uri", "redirect_uri is not registered for this client");
  }
  return client;
}

struct Refusal {
  std::string error;
  std::string description;
};

// The other parameters. nullopt when acceptable.
std::optional<Refusal> refused_parameters(const OidcClient& client, const Query& query) {
  if (query.contains("request")) return Refusal{"request_not_supported", "request objects are not supported"};
  if (query.contains("request_uri")) return Refusal{"request_uri_not_supported", "request_uri is not supported"};
  const auto response_type = param(query, "response_type");
  if (response_type.empty()) return Refusal{"invalid_request", "response_type is required"};
  if (response_type != "code") return Refusal{"unsupported_response_type", "only response_type=code is supported"};
  if (query.contains("response_mode") && param(query, "response_mode") != "query") {
    return Refusal{"invalid_request", "only response_mode=query is supported"};
  }
  const auto scope = param(query, "scope");
  if (!has_word(scope, "openid")) return Refusal{"invalid_scope", "scope must contain openid"};
  for (const auto& wanted : split_words(scope)) {
    if (std::ranges::find(client.scopes, wanted) == client.scopes.end()) {
      return Refusal{"invalid_scope", "scope " + wanted + " is not allowed for this client"};
    }
  }
  const auto challenge = param(query, "code_challenge");
  const auto method = param(query, "code_challenge_method");
  if (!challenge.empty() || !method.empty()) {
    if (method != "S256") return Refusal{"invalid_request", "code_challenge_method must be S256 (plain is refused)"};
    if (!valid_pkce_challenge(challenge)) return Refusal{"invalid_request", "code_challenge is not a S256 challenge"};
  } else if (client.is_public) {
    return Refusal{"invalid_request", "a public client must use PKCE (code_challenge, S256)"};
  }
  const auto prompt = split_words(param(query, "prompt"));
  for (const auto& value : prompt) {
    if (value != "none" && value != "login" && value != "consent") {
      return Refusal{"invalid_request", "prompt " + value + " is not supported"};
    }
    if (value == "none" && prompt.size() > 1) return Refusal{"invalid_request", "prompt=none stands alone"};
  }
  if (query.contains("max_age") && !whole_number(query, "max_age")) {
    return Refusal{"invalid_request", "max_age must be a non-negative integer"};
  }
  if (query.contains(kSignedInAfter) && !whole_number(query, kSignedInAfter)) {
    return Refusal{"invalid_request", "signed_in_after must be a non-negative integer"};
  }
  if (param(query, "state").size() > 1024 || param(query, "nonce").size() > 1024) {
    return Refusal{"invalid_request", "state or nonce too long"};
  }
  return std::nullopt;
}

http::Response to_client(const App& app, const http::Request& request, const Query& query,
                         std::vector<std::pair<std::string, std::string>> params) {
  if (query.contains("state")) params.emplace_back("state", param(query, "state"));
  params.emplace_back("iss", oidc::issuer(app, request));
  return oidc::redirect(oidc::with_query(param(query, "redirect_uri"), params));
}

http::Response refuse(const App& app, const http::Request& request, const Query& query, const Refusal& refusal) {
  return to_client(app, request, query, {{"error", refusal.error}, {"error_description", refusal.description}});
}

// The browser's authd session, re-authenticated as on protected routes (the
// second-factor policy included). nullopt when there is none, or when the
// cookie holds a service client's token.
std::optional<Principal> session_of(App& app, const http::Request& request) {
  const auto cookie = http::cookie_value(request.param("HTTP_COOKIE"), "auth");
  if (cookie.empty()) return std::nullopt;
  auto principal = app.core->guard().check("Bearer " + std::string(cookie), std::nullopt, unix_now());
  // A service client's token (client_credentials) is no person signing in.
  if (!principal || is_service_subject(principal->claims().subject)) return std::nullopt;
  return std::move(*principal);
}

std::string amr_of(const Principal& principal) {
  const auto found = principal.claims().extra.find(kAmrClaim);
  if (found != principal.claims().extra.end() && !found->second.empty()) return found->second;
  return "pwd";
}

// /authorize again with `query` minus prompt (what prompt asked for is done).
std::string back_to_authorize(const http::Request& request, Query query) {
  query.erase("prompt");
  return request.base_path + "/authorize?" + oidc::encoded_query(query);
}

http::Response consent_page(const http::Request& request, const OidcClient& client, const Query& query) {
  Query kept = query;
  kept.erase("prompt");
  std::string scopes;
  for (const auto& scope : split_words(param(query, "scope"))) scopes += "<li>" + text::html_escaped(scope) + "</li>";
  return oidc::page(200, "Allow access", request.base_path,
                    "<section class=\"card\"><h1>Allow " + text::html_escaped(client.name) + " to sign you in?</h1>"
                    "<p>It asks for:</p><ul>" + scopes + "</ul>"
                    "<form method=\"post\" action=\"" + text::html_escaped(request.base_path) + "/authorize/consent\">"
                    "<input type=\"hidden\" name=\"request\" value=\"" + text::html_escaped(oidc::encoded_query(kept)) +
                    "\"><button type=\"submit\" name=\"decision\" value=\"allow\">Allow</button> "
                    "<button type=\"submit\" name=\"decision\" value=\"deny\">Deny</button></form></section>");
}

// A browser sent here with a client_id or redirect_uri authd cannot trust:
// nothing may go back to that address, so the person gets a page saying why
// (a program that does not ask for HTML gets the usual 400 JSON).
bool wants_html(const http::Request& request) {
  return request.param("HTTP_ACCEPT").find("text/html") != std::string_view::npos;
}

http::Response untrusted_request_page(const http::Request& request, const Error& error) {
  return oidc::page(400, "Sign-in request refused", request.base_path,
                    "<section class=\"card\"><h1>This sign-in request cannot be trusted</h1>"
                    "<p>The application that sent you here is not registered with this site as it claims: " +
                    text::html_escaped(error.message) + ".</p>"
                    "<p>You have not been signed in anywhere. Go back to the application and tell its operator.</p>"
                    "</section>");
}

// The client of an authorization request that may go on (trusted_client,
// then refused_parameters); otherwise the answer to give instead.
std::expected<OidcClient, HandlerResult> admitted_client(App& app, const http::Request& request, const Query& query) {
  auto client = trusted_client(app, query);
  if (!client) {
    if (client.error().code == Errc::invalid_input && wants_html(request)) {
      return std::unexpected(HandlerResult(untrusted_request_page(request, client.error())));
    }
    // Built in place: a moved temporary here trips GCC 12's -Wmaybe-uninitialized.
    return std::expected<OidcClient, HandlerResult>(std::unexpect, std::unexpect, client.error());
  }
  if (auto refusal = refused_parameters(*client, query)) {
    return std::unexpected(HandlerResult(refuse(app, request, query, *refusal)));
  }
  return std::move(*client);
}

}  // namespace

HandlerResult oidc_authorize(App& app, const http::Request& request, const RouteContext&) {
  if (auto on = oidc::require_provider(app); !on) return std::unexpected(on.error());
  const Query query = http::parse_query(request.query);
  auto client = admitted_client(app, request, query);
  if (!client) return std::move(client.error());

  const auto prompt = param(query, "prompt");
  const auto now = unix_now();
  auto session = session_of(app, request);
  bool sign_in = !session || has_word(prompt, "login");
  const std::int64_t auth_time = session ? authenticated_at(session->claims()) : 0;
  if (session && query.contains("max_age")) sign_in = sign_in || now - auth_time > *whole_number(query, "max_age");
  if (session && query.contains(kSignedInAfter)) sign_in = sign_in || auth_time < *whole_number(query, kSignedInAfter);
  if (sign_in) {
    if (prompt == "none") return refuse(app, request, query, {"login_required", "the user is not signed in"});
    // The way back asks for a sign-in from now on (prompt=login itself would
    // ask again after it: a loop); max_age stays as it is.
    Query back = query;
    if (has_word(prompt, "login")) back.insert_or_assign(std::string(kSignedInAfter), std::to_string(now));
    std::string login = request.base_path + "/login?rd=" + http::percent_encoded(back_to_authorize(request, back));
    // Over a session, the portal shows the sign-in form all the same.
    if (session) login += "&prompt=login";
    // The sign-in form starts with the account the client suggests (a hint only).
    if (const auto hint = param(query, "login_hint"); !hint.empty() && hint.size() <= 256) {
      login += "&login_hint=" + http::percent_encoded(hint);
    }
    // No Set-Cookie: the session stays until a new sign-in replaces it, so a
    // cross-site link to /authorize?prompt=login signs nobody out.
    return oidc::redirect(login);
  }

  const auto scope = param(query, "scope");
  if (!client->first_party || has_word(prompt, "consent")) {
    bool allowed = false;
    if (!has_word(prompt, "consent")) {
      auto covered = app.core->oidc_consents().covers(session->user().id, client->id, scope, now);
      if (!covered) return std::unexpected(covered.error());
      allowed = *covered;
    }
    if (!allowed) {
      if (prompt == "none") return refuse(app, request, query, {"consent_required", "the user has not allowed this client"});
      return consent_page(request, *client, query);
    }
  }

  CodeGrant grant{.client_id = client->id,
                  .redirect_uri = param(query, "redirect_uri"),
                  .user_id = session->user().id,
                  .username = session->user().username,
                  .scope = scope,
                  .nonce = param(query, "nonce"),
                  .code_challenge = param(query, "code_challenge"),
                  .amr = amr_of(*session),
                  .auth_time = auth_time};
  auto code = app.core->authorization_codes().issue(grant, now);
  if (!code) return std::unexpected(code.error());
  audit(app, request, {.event = "oidc_authorize", .username = session->user().username, .outcome = "ok",
                       .reason = "code for client " + client->id});
  return to_client(app, request, query, {{"code", *code}});
}

HandlerResult oidc_consent(App& app, const http::Request& request, const RouteContext&) {
  if (auto on = oidc::require_provider(app); !on) return std::unexpected(on.error());
  const auto form = http::parse_query(request.body);
  const Query query = http::parse_query(param(form, "request"));
  auto client = admitted_client(app, request, query);
  if (!client) return std::move(client.error());
  auto session = session_of(app, request);
  if (!session) return fail(Errc::no_credentials, "sign in first");
  const auto decision = param(form, "decision");
  if (decision == "deny") {
    audit(app, request, {.event = "oidc_consent", .username = session->user().username, .outcome = "refused",
                         .reason = "client " + client->id});
    auto denied = refuse(app, request, query, {"access_denied", "the user did not allow it"});
    return oidc::continue_page(denied.headers.front().second, request.base_path);
  }
  if (decision != "allow") return fail_field("decision", "decision must be allow or deny");
  if (auto done = app.core->oidc_consents().grant(session->user().id, client->id, param(query, "scope"), unix_now());
      !done) {
    return std::unexpected(done.error());
  }
  audit(app, request, {.event = "oidc_consent", .username = session->user().username, .outcome = "ok",
                       .reason = "client " + client->id + ": " + param(query, "scope")});
  // Back to /authorize, which then redirects to the client.
  return oidc::continue_page(back_to_authorize(request, query), request.base_path);
}

}  // namespace authd::handlers
