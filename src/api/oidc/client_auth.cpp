// Client authentication shared by POST /token, /revoke and /introspect
// (client_auth.hpp).
#include "api/oidc/client_auth.hpp"

#include "authd/authorization.hpp"
#include "authd/client_assertion.hpp"
#include "authd/clock.hpp"
#include "api/audit_request.hpp"
#include "api/oidc/oidc.hpp"
#include "http/query.hpp"
#include "program/log.hpp"

namespace authd::handlers::oidc {
namespace {

// RFC 6749 §2.3.1: the Basic user and password are form-encoded first.
std::string form_decoded(std::string_view text) {
  auto decoded = http::parse_query("v=" + std::string(text));
  return param(decoded, "v");
}

// private_key_jwt: the client that signed the assertion, never throttled (a
// signature is not guessed), every refusal audited with its reason.
std::expected<ClientAuth, Refusal> assertion_client(App& app, const http::Request& request, const Form& form) {
  const auto type = param(form, "client_assertion_type");
  const auto assertion = param(form, "client_assertion");
  if (!request.authorization().empty() || !param(form, "client_secret").empty()) {
    return std::unexpected(Refusal{400, "invalid_request", "two client authentications"});
  }
  const auto peeked = jose::peek_client_assertion(assertion);
  const std::string who = peeked ? peeked->subject.substr(0, 64) : param(form, "client_id").substr(0, 64);
  auto refused = [&](std::string why) -> std::unexpected<Refusal> {
    audit(app, request, {.event = "oidc_client_auth_failed", .username = who, .outcome = "refused", .reason = why});
    return std::unexpected(Refusal{401, "invalid_client", "client authentication failed"});
  };
  if (type != jose::kClientAssertionType) return refused("client_assertion_type is not jwt-bearer");
  if (assertion.empty()) return refused("client_assertion is empty");
  const std::string issuer = oidc::issuer(app, request);
  auto client = app.core->client_assertions().authenticate(assertion, param(form, "client_id"),
                                                            {issuer + "/token", issuer}, unix_now());
  if (!client) {
    if (client.error().code != Errc::invalid_login) {
      return std::unexpected(Refusal{503, "temporarily_unavailable", "cannot check client authentication now", false, 5});
    }
    return refused(client.error().message);
  }
  return ClientAuth{std::move(*client), false};
}

}  // namespace

http::Response refused(const Refusal& r) {
  auto response = oidc::oauth_error(r.status, r.error, r.description);
  if (r.status == 401 && r.basic) response.header("WWW-Authenticate", "Basic realm=\"authd\"");
  if (r.retry_after > 0) response.header("Retry-After", std::to_string(r.retry_after));
  return response;
}

// Who is calling. Every failure is invalid_client (401) and audited. Only a
// presented secret is a guess: its failures are counted per client and caller
// address (SigninThrottle::check_client), never per client alone, and the
// caller's success clears its count. A request without a secret (a public
// client's PKCE exchange, or a confidential client's that is refused) guesses
// nothing and is neither counted nor delayed, nor is a secret sent with a
// public client's id, which has none to guess, or with an unknown client id.
std::expected<ClientAuth, Refusal> authenticate_client(App& app, const http::Request& request, const Form& form) {
  if (form.contains("client_assertion") || form.contains("client_assertion_type")) {
    return assertion_client(app, request, form);
  }
  std::string id = param(form, "client_id");
  std::string secret = param(form, "client_secret");
  bool basic = false;
  if (!request.authorization().empty()) {
    const auto credentials = parse_basic_authorization(request.authorization());
    if (!credentials) return std::unexpected(Refusal{401, "invalid_client", "malformed Authorization header", true});
    if (!secret.empty()) return std::unexpected(Refusal{400, "invalid_request", "two client authentications"});
    const auto basic_id = form_decoded(credentials->username);
    if (!id.empty() && id != basic_id) return std::unexpected(Refusal{400, "invalid_request", "client_id differs"});
    id = basic_id;
    secret = form_decoded(credentials->password);
    basic = true;
  }
  if (id.empty() || id.size() > 64) return std::unexpected(Refusal{401, "invalid_client", "client_id is required", basic});
  const auto now = unix_now();
  auto& throttle = app.core->throttle();
  auto& clients = app.core->oidc_clients();
  auto refused = [&](std::string why) -> std::unexpected<Refusal> {
    audit(app, request, {.event = "oidc_client_auth_failed", .username = id, .outcome = "refused", .reason = why});
    return std::unexpected(Refusal{401, "invalid_client", "client authentication failed", basic});
  };
  if (secret.empty()) {
    auto client = clients.find(id);
    if (!client) return refused("unknown client");
    if (!client->is_public) return refused("no secret for a confidential client");
    return ClientAuth{std::move(*client), basic};
  }
  if (auto allowed = throttle.check_client(id, request.remote_addr, now); !allowed) {
    if (allowed.error().code != Errc::throttled) {
      return std::unexpected(Refusal{503, "temporarily_unavailable", "cannot check client authentication now", basic, 5});
    }
    return std::unexpected(Refusal{429, "invalid_client", "too many failed client authentications from this address: wait",
                                   basic, allowed.error().retry_after.value_or(1)});
  }
  auto client = clients.authenticate(id, secret);
  if (!client) {
    // Only a registered confidential client has a secret to guess: a made-up
    // client_id costs no write (one per request otherwise, under a new key each time).
    if (auto known = clients.find(id); !known || known->is_public) {
      return refused(known ? "a client_secret for a public client" : "wrong secret or unknown client");
    }
    if (auto counted = throttle.record_client_failure(id, request.remote_addr, now); !counted) {
      log::warn("cannot count a failed client authentication: " + counted.error().message);
    }
    return refused("wrong secret or unknown client");
  }
  if (auto cleared = throttle.record_client_success(id, request.remote_addr); !cleared) {
    log::warn("cannot clear the failed client authentications of a caller: " + cleared.error().message);
  }
  return ClientAuth{std::move(*client), basic};
}

}  // namespace authd::handlers::oidc
