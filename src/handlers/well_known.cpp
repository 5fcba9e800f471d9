// Public-key token discovery (token_algorithm = EdDSA | ES256, and the ID-token
// keys when oidc_provider is on):
//   GET /.well-known/jwks.json            the public keys (RFC 7517), cacheable briefly
//   GET /.well-known/openid-configuration {"issuer","jwks_uri",...} (OpenID Discovery 1.0 §3)
// Both 404 with HS256 and no oidc_provider: there is no public key to publish.
#include "handlers/handlers.hpp"

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

HandlerResult openid_configuration(App& app, const http::Request& request, const RouteContext&) {
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
