// The device authorization grant (RFC 8628) of authd as OpenID provider:
//   POST /device_authorization  application/x-www-form-urlencoded [scope]
//     client authentication as at /token (a public client's client_id
//     alone, a secret, or private_key_jwt), for a client registered with the
//     grant (authctl client add --grant device_code). 200 {device_code,
//     user_code, verification_uri, verification_uri_complete, expires_in,
//     interval}, no-store. The device shows the user code and polls /token
//     (grant_type=urn:ietf:params:oauth:grant-type:device_code).
//   GET  /device[?user_code]  the page where a person signed in to authd (the
//     `auth` cookie, second-factor policy included; otherwise the sign-in
//     page first) types the code.
//   POST /device  (form user_code[, decision=allow|deny], same site only):
//     without a decision, the page that names the client and what it asks for
//     (a device is never allowed without this question: RFC 8628 §5.4, a code
//     read out by an attacker); with one, the answer, used once.
// Wrong codes are counted per user (DeviceAuthorizations::may_try): after
// five in ten minutes the page refuses more (429), audited.
#include <string>

#include "authd/clock.hpp"
#include "authd/device_authorizations.hpp"
#include "authd/text.hpp"
#include "api/audit_request.hpp"
#include "api/oidc/authorization_request.hpp"
#include "api/oidc/client_auth.hpp"
#include "api/oidc/oidc.hpp"
#include "api/oidc/routes.hpp"
#include "http/query.hpp"

namespace authd::handlers {
namespace {

using oidc::param;

std::string escaped(std::string_view text) { return text::html_escaped(text); }

// The form that asks for a code (`code` pre-filled), with `message` above it.
http::Response code_form(const http::Request& request, int status, std::string_view message, std::string_view code) {
  std::string content = "<section class=\"card\"><h1>Connect a device</h1>";
  if (!message.empty()) content += "<p class=\"error\" role=\"alert\">" + escaped(message) + "</p>";
  content += "<p>Type the code your device shows.</p><form method=\"post\" action=\"" + escaped(request.base_path) +
             "/device\"><label>Code <input name=\"user_code\" autocomplete=\"one-time-code\" "
             "autocapitalize=\"characters\" spellcheck=\"false\" required value=\"" + escaped(code) +
             "\"></label> <button type=\"submit\">Continue</button></form></section>";
  return oidc::page(status, "Connect a device", request.base_path, content);
}

http::Response question(const http::Request& request, const OidcClient& client, std::string_view scope,
                        std::string_view code) {
  std::string scopes;
  for (const auto& word : oidc::split_words(scope)) scopes += "<li>" + escaped(word) + "</li>";
  const std::string hidden = "<input type=\"hidden\" name=\"user_code\" value=\"" + escaped(code) + "\">";
  return oidc::page(200, "Allow the device", request.base_path,
                    "<section class=\"card\"><h1>Allow " + escaped(client.name) + " on your device?</h1>"
                    "<p>Only if you started this on a device of your own and it shows the code <strong>" +
                    escaped(code) + "</strong>. It asks for:</p><ul>" + scopes + "</ul>"
                    "<form method=\"post\" action=\"" + escaped(request.base_path) + "/device\">" + hidden +
                    "<button type=\"submit\" name=\"decision\" value=\"allow\">Allow</button> "
                    "<button type=\"submit\" name=\"decision\" value=\"deny\">Deny</button></form></section>");
}

http::Response done_page(const http::Request& request, bool allowed) {
  return oidc::page(200, allowed ? "Device connected" : "Device refused", request.base_path,
                    std::string("<section class=\"card\"><h1>") +
                        (allowed ? "Done: go back to your device" : "The device was not allowed") +
                        "</h1><p>You can close this page.</p></section>");
}

}  // namespace

HandlerResult oidc_device_authorization(App& app, const http::Request& request, const RouteContext&) {
  if (auto on = oidc::require_provider(app); !on) return std::unexpected(on.error());
  const oidc::Form form = http::parse_query(request.body);
  auto caller = oidc::authenticate_client(app, request, form);
  if (!caller) return oidc::refused(caller.error());
  const auto& client = caller->client;
  if (!has_grant(client, kDeviceCodeGrant)) {
    return oidc::oauth_error(400, "unauthorized_client", not_registered_for(kDeviceCodeGrant));
  }
  std::string scope = param(form, "scope");
  if (auto word = oidc::unallowed_scope(client, scope)) {
    return oidc::oauth_error(400, "invalid_scope", "scope " + *word + " is not allowed for this client");
  }
  if (scope.empty()) scope = "openid";
  const auto interval = app.core->settings().oidc.device_poll_interval.count();
  auto started = app.core->device_authorizations().start({client.id, scope}, interval, unix_now());
  if (!started) return std::unexpected(started.error());
  audit(app, request, {.event = "oidc_device_authorization", .username = client.id, .outcome = "ok",
                       .reason = "codes for scope " + scope});
  const std::string page = oidc::issuer(app, request) + "/device";
  Json body = Json::object();
  body.set("device_code", Json::string(started->device_code))
      .set("user_code", Json::string(started->user_code))
      .set("verification_uri", Json::string(page))
      .set("verification_uri_complete", Json::string(page + "?user_code=" + started->user_code))
      .set("expires_in", Json::integer(started->expires_in))
      .set("interval", Json::integer(interval));
  auto response = http::Response::json(200, body);
  response.header("Cache-Control", "no-store");
  return response;
}

HandlerResult oidc_device_page(App& app, const http::Request& request, const RouteContext&) {
  if (auto on = oidc::require_provider(app); !on) return std::unexpected(on.error());
  const auto query = http::parse_query(request.query);
  const auto code = param(query, "user_code").substr(0, 32);
  if (!oidc::session_of(app, request)) {
    std::string back = request.base_path + "/device";
    if (!code.empty()) back += "?user_code=" + http::percent_encoded(code);
    return oidc::redirect(request.base_path + "/login?rd=" + http::percent_encoded(back));
  }
  return code_form(request, 200, "", code);
}

HandlerResult oidc_device_decision(App& app, const http::Request& request, const RouteContext&) {
  if (auto on = oidc::require_provider(app); !on) return std::unexpected(on.error());
  auto session = oidc::session_of(app, request);
  if (!session) return fail(Errc::no_credentials, "sign in first");
  const auto form = http::parse_query(request.body);
  const auto code = param(form, "user_code").substr(0, 32);
  const auto& user = session->user();
  auto& devices = app.core->device_authorizations();
  const auto now = unix_now();
  auto may = devices.may_try(user.id, now);
  if (!may) return std::unexpected(may.error());
  if (!*may) {
    audit(app, request, {.event = "oidc_device", .username = user.username, .outcome = "refused",
                         .reason = "too many wrong device codes"});
    auto page = code_form(request, 429, "Too many wrong codes: try again in ten minutes.", "");
    page.header("Retry-After", std::to_string(kUserCodeFailureWindow));
    return page;
  }
  auto pending = devices.find(code, now);
  if (!pending) {
    if (pending.error().code != Errc::invalid_token) return std::unexpected(pending.error());
    if (auto counted = devices.record_wrong_code(user.id, now); !counted) return std::unexpected(counted.error());
    audit(app, request, {.event = "oidc_device", .username = user.username, .outcome = "refused",
                         .reason = "unknown, expired or used device code"});
    return code_form(request, 400, "That code is unknown, expired or already used.", code);
  }
  auto client = app.core->oidc_clients().find(pending->client_id);
  if (!client) {
    if (client.error().code != Errc::not_found) return std::unexpected(client.error());
    return code_form(request, 400, "The application of that code is no longer registered.", "");
  }
  const auto decision = param(form, "decision");
  if (decision.empty()) {
    const auto typed = normalized_user_code(code);  // as the device shows it
    return question(request, *client, pending->scope, typed.substr(0, 4) + "-" + typed.substr(4));
  }
  if (decision != "allow" && decision != "deny") return fail_field("decision", "decision must be allow or deny");
  const bool allow = decision == "allow";
  const DeviceApproval approval{user.id, user.username, oidc::amr_of(*session), oidc::authenticated_at(session->claims())};
  if (auto decided = devices.decide(code, allow, approval, now); !decided) {
    if (decided.error().code != Errc::invalid_token) return std::unexpected(decided.error());
    return code_form(request, 400, "That code is unknown, expired or already used.", "");
  }
  audit(app, request, {.event = "oidc_device", .username = user.username, .outcome = allow ? "ok" : "refused",
                       .reason = "client " + client->id + (allow ? " allowed: " + pending->scope : " denied")});
  return done_page(request, allow);
}

}  // namespace authd::handlers
