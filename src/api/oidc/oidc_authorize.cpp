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
//   POST /authorize: the same parameters as a form (OpenID Connect Core
//        §3.1.2.1), from any site: it does no more than the GET would.
//   GET  /authorize?client_id&request_uri: the request the client pushed to
//        /par (RFC 9126, pushed_requests.hpp) instead of its parameters; the
//        browser's way back from the sign-in and consent pages then carries
//        only these two (what a step settled is kept with the pushed
//        request), and the answer to the client uses the request up. A client
//        registered with require_pushed_authorization_requests must push.
//   POST /authorize/consent  (form: request=<the authorization query>, decision=allow|deny)
//        records the consent (lib/oidc/consents.cpp) and sends the browser back
//        to /authorize; deny -> access_denied to the client. Both by a 200
//        page that refreshes to the address (oidc::continue_page: form-action).
#include <algorithm>
#include <charconv>

#include "authd/authorization_codes.hpp"
#include "authd/backchannel_logout.hpp"
#include "authd/clock.hpp"
#include "authd/oidc_consents.hpp"
#include "authd/text.hpp"
#include "api/audit_request.hpp"
#include "api/oidc/authorization_request.hpp"
#include "api/oidc/routes.hpp"
#include "api/oidc/oidc.hpp"
#include "http/query.hpp"
#include "program/log.hpp"

namespace authd::handlers {
namespace {

using oidc::amr_of;
using oidc::authenticated_at;
using oidc::has_word;
using oidc::kSignedInAfter;
using oidc::param;
using oidc::Query;
using oidc::session_of;
using oidc::split_words;
using oidc::whole_number;

// The authorization request in force: the browser's query, or what the client
// pushed to /par.
struct Authorization {
  Query query;              // the parameters
  std::string request_uri;  // a pushed request's, else ""
};

// A browser sent here with a request authd cannot go on with and no address
// it may send an error to: a page saying why for a person (Accept:
// text/html), the usual 400 JSON for a program.
bool wants_html(const http::Request& request) {
  return request.param("HTTP_ACCEPT").find("text/html") != std::string_view::npos;
}

HandlerResult refusal_without_client(const http::Request& request, const Error& error, std::string_view headline,
                                     std::string_view explanation) {
  if (error.code != Errc::invalid_input || !wants_html(request)) return std::unexpected(error);
  return oidc::page(400, "Sign-in request refused", request.base_path,
                    "<section class=\"card\"><h1>" + std::string(headline) + "</h1><p>" + std::string(explanation) +
                        text::html_escaped(error.message) + ".</p>"
                        "<p>You have not been signed in anywhere. Go back to the application and tell its operator.</p>"
                        "</section>");
}

// The request `sent` stands for: itself, or, with a request_uri, the pushed
// one (RFC 9126 §4: its other parameters are ignored). Error: invalid_input
// (no client_id, or a request_uri that is malformed, unknown, expired, used
// or another client's: there is no checked address to tell the client).
Result<Authorization> authorization_of(App& app, const Query& sent) {
  if (!sent.contains("request_uri")) return Authorization{sent, {}};
  const auto client_id = param(sent, "client_id");
  if (client_id.empty()) return fail_field("client_id", "client_id is required");
  const auto request_uri = param(sent, "request_uri");
  auto pushed = app.core->pushed_requests().open(request_uri, client_id, unix_now());
  if (!pushed) {
    if (pushed.error().code == Errc::invalid_token) {
      return fail_field("request_uri", "request_uri is unknown, expired or already used");
    }
    return std::unexpected(pushed.error());
  }
  (*pushed)["client_id"] = client_id;
  return Authorization{std::move(*pushed), request_uri};
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
    return fail_field("client_id", not_registered_for(kAuthorizationCodeGrant));
  }
  const auto redirect_uri = param(query, "redirect_uri");
  if (redirect_uri.empty()) return fail_field("redirect_uri", "redirect_uri is required");
  if (!has_redirect_uri(*client, redirect_uri)) {
    return fail_field("redirect_uri", "redirect_uri is not registered for this client");
  }
  return client;
}

// The answer to the client, at its checked redirect_uri; it uses a pushed
// request up.
http::Response to_client(App& app, const http::Request& request, const Authorization& authorization,
                         std::vector<std::pair<std::string, std::string>> params) {
  const auto& query = authorization.query;
  if (!authorization.request_uri.empty()) {
    if (auto used = app.core->pushed_requests().finish(authorization.request_uri); !used) {
      log::warn("cannot use up a pushed authorization request: " + used.error().message);
    }
  }
  if (query.contains("state")) params.emplace_back("state", param(query, "state"));
  params.emplace_back("iss", oidc::issuer(app, request));
  return oidc::redirect(oidc::with_query(param(query, "redirect_uri"), params));
}

http::Response refuse(App& app, const http::Request& request, const Authorization& authorization,
                      const oidc::RequestRefusal& refusal) {
  return to_client(app, request, authorization, {{"error", refusal.error}, {"error_description", refusal.description}});
}


// What sends the browser back to /authorize: `settled` (the request's
// parameters with what a step settled) minus prompt, which that step did;
// for a pushed request, `settled` is kept with it and the way back carries
// only client_id and request_uri.
Result<std::string> back_to_authorize(App& app, const http::Request& request, const Authorization& authorization,
                                      Query settled) {
  settled.erase("prompt");
  if (authorization.request_uri.empty()) return request.base_path + "/authorize?" + oidc::encoded_query(settled);
  if (auto kept = app.core->pushed_requests().update(authorization.request_uri, settled, unix_now()); !kept) {
    if (kept.error().code == Errc::invalid_token) {
      return fail_field("request_uri", "request_uri is unknown, expired or already used");
    }
    return std::unexpected(kept.error());
  }
  return request.base_path + "/authorize?" +
         oidc::encoded_query(Query{{"client_id", param(authorization.query, "client_id")},
                                   {"request_uri", authorization.request_uri}});
}

// The consent form carries the request (minus prompt: the form is the
// consent asked for), or a pushed one's client_id and request_uri.
http::Response consent_page(const http::Request& request, const OidcClient& client, const Authorization& authorization) {
  const auto& query = authorization.query;
  Query kept = query;
  kept.erase("prompt");
  if (!authorization.request_uri.empty()) {
    kept = Query{{"client_id", client.id}, {"request_uri", authorization.request_uri}};
  }
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

// The client of an authorization request that may go on (trusted_client,
// then refused_parameters); otherwise the answer to give instead.
std::expected<OidcClient, HandlerResult> admitted_client(App& app, const http::Request& request,
                                                         const Authorization& authorization) {
  auto client = trusted_client(app, authorization.query);
  if (!client) {
    return std::unexpected(refusal_without_client(request, client.error(), "This sign-in request cannot be trusted",
                                                  "The application that sent you here is not registered with this "
                                                  "site as it claims: "));
  }
  if (auto refusal = oidc::refused_parameters(*client, authorization.query)) {
    return std::unexpected(HandlerResult(refuse(app, request, authorization, *refusal)));
  }
  if (client->require_par && authorization.request_uri.empty()) {
    return std::unexpected(HandlerResult(refuse(app, request, authorization,
                                                {"invalid_request", "this client must push its authorization "
                                                                    "requests to /par (request_uri)"})));
  }
  return std::move(*client);
}

// The request of `sent` and its client, or the answer to give instead.
struct Admitted {
  Authorization authorization;
  OidcClient client;
};
std::expected<Admitted, HandlerResult> admitted(App& app, const http::Request& request, const Query& sent) {
  auto authorization = authorization_of(app, sent);
  if (!authorization) {
    return std::unexpected(refusal_without_client(request, authorization.error(), "This sign-in request has expired",
                                                  "The application's sign-in request cannot be used: "));
  }
  auto client = admitted_client(app, request, *authorization);
  if (!client) return std::unexpected(std::move(client.error()));
  return Admitted{std::move(*authorization), std::move(*client)};
}

}  // namespace

HandlerResult oidc_authorize(App& app, const http::Request& request, const RouteContext&) {
  if (auto on = oidc::require_provider(app); !on) return std::unexpected(on.error());
  // The request's parameters: the query, or a form post's body (Core §3.1.2.1).
  auto found = admitted(app, request, http::parse_query(request.method == "POST" ? request.body : request.query));
  if (!found) return std::move(found.error());
  const auto& [authorization, client] = *found;
  const Query& query = authorization.query;

  const auto prompt = param(query, "prompt");
  const auto now = unix_now();
  auto session = session_of(app, request);
  bool sign_in = !session || has_word(prompt, "login");
  const std::int64_t auth_time = session ? authenticated_at(session->claims()) : 0;
  if (session && query.contains("max_age")) sign_in = sign_in || now - auth_time > *whole_number(query, "max_age");
  if (session && query.contains(kSignedInAfter)) sign_in = sign_in || auth_time < *whole_number(query, kSignedInAfter);
  if (sign_in) {
    if (prompt == "none") return refuse(app, request, authorization, {"login_required", "the user is not signed in"});
    // The way back asks for a sign-in from now on (prompt=login itself would
    // ask again after it: a loop); max_age stays as it is.
    Query back = query;
    if (has_word(prompt, "login")) back.insert_or_assign(std::string(kSignedInAfter), std::to_string(now));
    auto way_back = back_to_authorize(app, request, authorization, std::move(back));
    if (!way_back) return std::unexpected(way_back.error());
    std::string login = request.base_path + "/login?rd=" + http::percent_encoded(*way_back);
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
  if (!client.first_party || has_word(prompt, "consent")) {
    bool allowed = false;
    if (!has_word(prompt, "consent")) {
      auto covered = app.core->oidc_consents().covers(session->user().id, client.id, scope, now);
      if (!covered) return std::unexpected(covered.error());
      allowed = *covered;
    }
    if (!allowed) {
      if (prompt == "none") {
        return refuse(app, request, authorization, {"consent_required", "the user has not allowed this client"});
      }
      return consent_page(request, client, authorization);
    }
  }

  CodeGrant grant{.client_id = client.id,
                  .redirect_uri = param(query, "redirect_uri"),
                  .user_id = session->user().id,
                  .username = session->user().username,
                  .scope = scope,
                  .nonce = param(query, "nonce"),
                  .code_challenge = param(query, "code_challenge"),
                  .amr = amr_of(*session),
                  .auth_time = auth_time,
                  .sid = session_id_of(session_handle_of(session->claims())),
                  .issuer = oidc::issuer(app, request)};
  auto code = app.core->authorization_codes().issue(grant, now);
  if (!code) return std::unexpected(code.error());
  audit(app, request, {.event = "oidc_authorize", .username = session->user().username, .outcome = "ok",
                       .reason = "code for client " + client.id + (authorization.request_uri.empty() ? "" : " (pushed request)")});
  return to_client(app, request, authorization, {{"code", *code}});
}

HandlerResult oidc_consent(App& app, const http::Request& request, const RouteContext&) {
  if (auto on = oidc::require_provider(app); !on) return std::unexpected(on.error());
  const auto form = http::parse_query(request.body);
  auto found = admitted(app, request, http::parse_query(param(form, "request")));
  if (!found) return std::move(found.error());
  const auto& [authorization, client] = *found;
  auto session = session_of(app, request);
  if (!session) return fail(Errc::no_credentials, "sign in first");
  const auto decision = param(form, "decision");
  if (decision == "deny") {
    audit(app, request, {.event = "oidc_consent", .username = session->user().username, .outcome = "refused",
                         .reason = "client " + client.id});
    auto denied = refuse(app, request, authorization, {"access_denied", "the user did not allow it"});
    return oidc::continue_page(denied.headers.front().second, request.base_path);
  }
  if (decision != "allow") return fail_field("decision", "decision must be allow or deny");
  const auto scope = param(authorization.query, "scope");
  if (auto done = app.core->oidc_consents().grant(session->user().id, client.id, scope, unix_now()); !done) {
    return std::unexpected(done.error());
  }
  audit(app, request, {.event = "oidc_consent", .username = session->user().username, .outcome = "ok",
                       .reason = "client " + client.id + ": " + scope});
  // Back to /authorize, which then redirects to the client.
  auto way_back = back_to_authorize(app, request, authorization, authorization.query);
  if (!way_back) return std::unexpected(way_back.error());
  return oidc::continue_page(*way_back, request.base_path);
}

}  // namespace authd::handlers
