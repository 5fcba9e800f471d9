// The authorization-code flow against one provider.
#include "authd/oauth.hpp"

#include "authd/clock.hpp"

namespace authd {
namespace {

constexpr std::int64_t kJwksRefreshSeconds = 30;

std::string append_query(std::string url, const FormFields& fields) {
  url += url.find('?') == std::string::npos ? '?' : '&';
  url += HttpClient::form_encode(fields);
  return url;
}

Result<Json> json_body(const HttpResponse& response, std::string_view what) {
  auto json = Json::parse(response.body, 16);
  if (!json || !json->is_object()) {
    return fail(Errc::upstream_failed, std::string(what) + " answered " + std::to_string(response.status) +
                                       " without a JSON object");
  }
  return json;
}

// RFC 6749 §5.2 error codes that mean the user's code is no good (start
// again), as opposed to our client being misconfigured.
bool user_side_token_error(std::string_view error) {
  return error == "invalid_grant" || error == "invalid_request" || error == "bad_verification_code";
}

}  // namespace

OAuthClient::OAuthClient(OAuthProvider provider, HttpTimeouts timeouts)
    : provider_(std::move(provider)), http_(timeouts) {}

Result<OAuthClient::Endpoints> OAuthClient::endpoints() {
  {
    std::lock_guard lock(mutex_);
    if (endpoints_) return *endpoints_;
  }
  Endpoints found{provider_.issuer, provider_.authorization_url, provider_.token_url, provider_.userinfo_url,
                  provider_.jwks_url};
  const bool need_discovery =
      !provider_.issuer.empty() && (found.authorization.empty() || found.token.empty() || found.jwks.empty());
  if (need_discovery) {
    // OpenID Connect Discovery §4: remove one trailing '/' before appending;
    // the issuer is compared with same_issuer (Auth0's ends in '/').
    std::string_view base = provider_.issuer;
    if (base.ends_with('/')) base.remove_suffix(1);
    auto response = http_.get(std::string(base) + "/.well-known/openid-configuration", {"Accept: application/json"});
    if (!response) return std::unexpected(response.error());
    if (response->status != 200) {
      return fail(Errc::upstream_failed, "OpenID discovery answered " + std::to_string(response->status));
    }
    auto doc = json_body(*response, "OpenID discovery");
    if (!doc) return std::unexpected(doc.error());
    // OpenID Connect Discovery §4.3: the document must name the issuer we asked.
    if (!same_issuer(doc->get_string("issuer").value_or(""), provider_.issuer)) {
      return fail(Errc::upstream_failed, "OpenID discovery names another issuer");
    }
    auto fill = [&](std::string& slot, std::string_view key) {
      if (slot.empty()) slot = std::string(doc->get_string(key).value_or(""));
    };
    fill(found.authorization, "authorization_endpoint");
    fill(found.token, "token_endpoint");
    fill(found.userinfo, "userinfo_endpoint");
    fill(found.jwks, "jwks_uri");
    if (found.authorization.empty() || found.token.empty() || found.jwks.empty()) {
      return fail(Errc::upstream_failed, "OpenID discovery lacks an endpoint");
    }
  }
  std::lock_guard lock(mutex_);
  endpoints_ = found;
  return found;
}

Result<std::shared_ptr<const Jwks>> OAuthClient::jwks(bool refresh) {
  const auto now = unix_now();
  {
    std::lock_guard lock(mutex_);
    if (jwks_ && (!refresh || now - jwks_fetched_at_ < kJwksRefreshSeconds)) return jwks_;
  }
  auto eps = endpoints();
  if (!eps) return std::unexpected(eps.error());
  auto response = http_.get(eps->jwks, {"Accept: application/json"});
  if (!response) return std::unexpected(response.error());
  if (response->status != 200) return fail(Errc::upstream_failed, "the JWKS endpoint answered " + std::to_string(response->status));
  auto parsed = Jwks::parse(response->body);
  if (!parsed) return std::unexpected(parsed.error());
  auto keys = std::make_shared<const Jwks>(std::move(*parsed));
  std::lock_guard lock(mutex_);
  jwks_ = keys;
  jwks_fetched_at_ = now;
  return keys;
}

Result<std::string> OAuthClient::authorization_url(const OAuthState& state, std::string_view code_challenge) {
  auto eps = endpoints();
  if (!eps) return std::unexpected(eps.error());
  FormFields query{{"response_type", "code"},
                   {"client_id", provider_.client_id},
                   {"redirect_uri", provider_.redirect_uri}};
  if (!provider_.scopes.empty()) query.emplace_back("scope", provider_.scopes);
  query.emplace_back("state", state.state);
  query.emplace_back("code_challenge", std::string(code_challenge));
  query.emplace_back("code_challenge_method", "S256");
  if (provider_.openid()) query.emplace_back("nonce", state.nonce);
  return append_query(eps->authorization, query);
}

Result<Json> OAuthClient::exchange_code(const Endpoints& eps, std::string_view code, const OAuthState& state) {
  FormFields form{{"grant_type", "authorization_code"},
                  {"code", std::string(code)},
                  {"redirect_uri", provider_.redirect_uri},
                  {"code_verifier", state.verifier}};
  std::vector<std::string> headers{"Accept: application/json"};
  if (provider_.token_auth == TokenEndpointAuth::basic) {
    // RFC 6749 §2.3.1: form-encode both parts before base64.
    headers.push_back("Authorization: Basic " +
                      crypto::base64_encode(HttpClient::url_encode(provider_.client_id) + ":" +
                                            HttpClient::url_encode(provider_.client_secret)));
  } else {
    form.emplace_back("client_id", provider_.client_id);
    if (!provider_.client_secret.empty()) form.emplace_back("client_secret", provider_.client_secret);
  }
  auto response = http_.post_form(eps.token, form, headers);
  if (!response) return std::unexpected(response.error());
  if (response->status >= 500) {
    return fail(Errc::upstream_failed, "the token endpoint answered " + std::to_string(response->status));
  }
  auto body = json_body(*response, "the token endpoint");
  if (!body) return std::unexpected(body.error());
  // GitHub answers 200 with an error member; others 400/401 (RFC 6749 §5.2).
  if (const auto error = body->get_string("error"); error || response->status != 200) {
    const std::string code_text(error.value_or("no error code"));
    if (user_side_token_error(code_text)) {
      return fail(Errc::invalid_input, "the provider refused the authorization code (" + code_text +
                                         "): it may have expired or been used already; sign in again");
    }
    return fail(Errc::upstream_failed, "the token endpoint refused the exchange (" + code_text + ")");
  }
  return body;
}

Result<Json> OAuthClient::fetch_userinfo(const Endpoints& eps, std::string_view access_token) {
  if (eps.userinfo.empty()) return fail(Errc::upstream_failed, "no userinfo endpoint is known");
  auto response = http_.get(eps.userinfo, {"Accept: application/json",
                                           "Authorization: Bearer " + std::string(access_token)});
  if (!response) return std::unexpected(response.error());
  if (response->status != 200) {
    return fail(Errc::upstream_failed, "the userinfo endpoint answered " + std::to_string(response->status));
  }
  return json_body(*response, "the userinfo endpoint");
}

Result<ExternalIdentity> OAuthClient::complete(std::string_view code, const OAuthState& state, std::int64_t now) {
  auto eps = endpoints();
  if (!eps) return std::unexpected(eps.error());
  auto tokens = exchange_code(*eps, code, state);
  if (!tokens) return std::unexpected(tokens.error());

  if (!provider_.openid()) {
    const auto access_token = tokens->get_string("access_token");
    if (!access_token || access_token->empty()) return fail(Errc::upstream_failed, "the token endpoint sent no access_token");
    auto claims = fetch_userinfo(*eps, *access_token);
    if (!claims) return std::unexpected(claims.error());
    return identity_from_claims(provider_, *claims);
  }

  const auto id_token = tokens->get_string("id_token");
  if (!id_token) return fail(Errc::upstream_failed, "the token endpoint sent no id_token");
  const IdTokenChecks checks{eps->issuer, provider_.client_id, state.nonce, now, std::chrono::seconds{60}};
  auto keys = jwks(false);
  if (!keys) return std::unexpected(keys.error());
  auto claims = verify_id_token(*id_token, **keys, checks);
  if (!claims && claims.error().code == Errc::not_found) {  // key rotated? fetch the JWKS again, once
    keys = jwks(true);
    if (!keys) return std::unexpected(keys.error());
    claims = verify_id_token(*id_token, **keys, checks);
  }
  if (!claims) {
    if (claims.error().code == Errc::not_found) return fail(Errc::upstream_failed, claims.error().message);
    return std::unexpected(claims.error());
  }
  return identity_from_claims(provider_, *claims);
}

}  // namespace authd
