// Public-key token discovery (token_algorithm = EdDSA | ES256, and the ID-token
// keys when oidc_provider is on):
//   GET /.well-known/jwks.json            the public keys (RFC 7517), cacheable briefly
//   GET /.well-known/openid-configuration {"issuer","jwks_uri",...} (OpenID Discovery 1.0 §3)
// Both 404 with HS256 and no oidc_provider: there is no public key to publish.
// With oidc_provider the configuration is the OpenID provider's: issuer =
// public_url, every endpoint and choice authd supports, and nothing else.
#include "authd/client_assertion.hpp"
#include "authd/oidc_clients.hpp"
#include "api/oidc/routes.hpp"
#include "api/oidc/oidc.hpp"

namespace authd::handlers {
namespace {

// Short: after `authctl key rotate` verifiers fetch the new key when they meet
// its kid anyway; a retired key drops out of caches within this time.
constexpr std::string_view kJwksCacheControl = "public, max-age=300";

std::string site_origin(const http::Request& request) {
  const auto host = request.param("HTTP_HOST");
  return std::string(request.https ? "https://" : "http://") + std::string(host.empty() ? "localhost" : host);
}

}  // namespace

HandlerResult jwks(App& app, const http::Request&, const RouteContext&) {
  auto keys = app.core->jwks();
  if (!keys) return fail(Errc::not_found, "token_algorithm is HS256: no public keys");
  auto response = http::Response::json_text(200, std::move(*keys));
  response.headers.front().second = "application/jwk-set+json";
  response.header("Cache-Control", std::string(kJwksCacheControl));
  return response;
}

namespace {

Json strings(std::initializer_list<std::string_view> values) {
  Json array = Json::array();
  for (const auto value : values) array.append(Json::string(value));
  return array;
}

http::Response provider_configuration(App& app, const http::Request& request) {
  const std::string issuer = oidc::issuer(app, request);
  // offline_access only while refresh tokens are issued (refresh_token_ttl > 0):
  // with it 0 the scope gives no refresh token, so it is not offered.
  const bool refresh = app.core->refresh().enabled();
  Json scopes = Json::array();
  for (const auto& scope : supported_oidc_scopes()) {
    if (scope != "offline_access" || refresh) scopes.append(Json::string(scope));
  }
  Json grants = strings({"authorization_code"});
  if (refresh) grants.append(Json::string("refresh_token"));
  grants.append(Json::string(kClientCredentialsGrant));
  grants.append(Json::string(kDeviceCodeGrant));
  Json assertion_algorithms = Json::array();
  for (const auto alg : jose::kClientAssertionAlgorithms) assertion_algorithms.append(Json::string(alg));
  Json body = Json::object();
  body.set("issuer", Json::string(issuer))
      .set("authorization_endpoint", Json::string(issuer + "/authorize"))
      .set("token_endpoint", Json::string(issuer + "/token"))
      .set("userinfo_endpoint", Json::string(issuer + "/userinfo"))
      .set("jwks_uri", Json::string(issuer + "/.well-known/jwks.json"))
      .set("end_session_endpoint", Json::string(issuer + "/end_session"))
      .set("revocation_endpoint", Json::string(issuer + "/revoke"))
      .set("introspection_endpoint", Json::string(issuer + "/introspect"))
      // RFC 9126 §5; a client registered with require_pushed_authorization_requests must use it.
      .set("pushed_authorization_request_endpoint", Json::string(issuer + "/par"))
      .set("device_authorization_endpoint", Json::string(issuer + "/device_authorization"))
      .set("require_pushed_authorization_requests", Json::boolean(false))
      .set("response_types_supported", strings({"code"}))
      .set("response_modes_supported", strings({"query"}))
      .set("grant_types_supported", std::move(grants))
      .set("subject_types_supported", strings({"public"}))
      .set("id_token_signing_alg_values_supported",
           strings({crypto::jws_algorithm(app.core->id_token_keys()->algorithm())}))
      .set("scopes_supported", std::move(scopes))
      .set("token_endpoint_auth_methods_supported",
           strings({"client_secret_basic", "client_secret_post", "private_key_jwt", "none"}))
      .set("token_endpoint_auth_signing_alg_values_supported", assertion_algorithms)
      .set("revocation_endpoint_auth_methods_supported",
           strings({"client_secret_basic", "client_secret_post", "private_key_jwt", "none"}))
      .set("revocation_endpoint_auth_signing_alg_values_supported", assertion_algorithms)
      .set("introspection_endpoint_auth_methods_supported",
           strings({"client_secret_basic", "client_secret_post", "private_key_jwt"}))
      .set("introspection_endpoint_auth_signing_alg_values_supported", assertion_algorithms)
      .set("code_challenge_methods_supported", strings({"S256"}))
      .set("prompt_values_supported", strings({"none", "login", "consent"}))
      .set("claims_supported", strings({"iss", "sub", "aud", "exp", "iat", "auth_time", "nonce", "amr", "acr", "azp",
                                        "at_hash", "sid", "preferred_username", "name", "email", "email_verified",
                                        "roles"}))
      .set("backchannel_logout_supported", Json::boolean(true))
      .set("backchannel_logout_session_supported", Json::boolean(true))
      .set("acr_values_supported", strings({"1", "2"}))
      .set("authorization_response_iss_parameter_supported", Json::boolean(true))
      .set("request_parameter_supported", Json::boolean(false))
      .set("request_uri_parameter_supported", Json::boolean(false))
      .set("claims_parameter_supported", Json::boolean(false));
  auto response = http::Response::json(200, body);
  response.header("Cache-Control", std::string(kJwksCacheControl));
  return response;
}

}  // namespace

HandlerResult openid_configuration(App& app, const http::Request& request, const RouteContext&) {
  if (app.core->settings().oidc.provider && app.core->id_token_keys()) return provider_configuration(app, request);
  const auto& tokens = app.core->tokens();
  if (!tokens.jwks()) return fail(Errc::not_found, "token_algorithm is HS256: no public keys");
  Json algorithms = Json::array();
  algorithms.append(Json::string(tokens.algorithm_name()));
  Json body = Json::object();
  body.set("issuer", Json::string(tokens.policy().issuer))
      .set("jwks_uri", Json::string(site_origin(request) + request.base_path + "/.well-known/jwks.json"))
      .set("token_endpoint_auth_signing_alg_values_supported", algorithms)
      .set("id_token_signing_alg_values_supported", algorithms);
  auto response = http::Response::json(200, body);
  response.header("Cache-Control", std::string(kJwksCacheControl));
  return response;
}

}  // namespace authd::handlers
