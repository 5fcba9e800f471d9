// Client authentication at the OpenID provider's client endpoints (POST
// /token, /revoke, /introspect): client_secret_basic, client_secret_post,
// private_key_jwt (a signed client_assertion, RFC 7523 §2.2, checked by
// Core::client_assertions()), or none (a public client's client_id alone).
// RFC 6749 §2.3.1, §5.2.
#pragma once

#include <cstdint>
#include <expected>
#include <map>
#include <string>

#include "authd/oidc_clients.hpp"
#include "api/route.hpp"

namespace authd::handlers::oidc {

using Form = std::map<std::string, std::string, std::less<>>;

struct ClientAuth {
  OidcClient client;
  bool basic = false;  // the client sent HTTP Basic credentials
};

// An OAuth error answer: {"error","error_description"}, with a Basic
// challenge on a 401 to a Basic caller, Retry-After on a 429 or 503.
struct Refusal {
  int status;
  std::string error;
  std::string description;
  bool basic = false;
  std::int64_t retry_after = 0;  // seconds, for 429 and 503
};

http::Response refused(const Refusal& refusal);

// Who is calling, from the Authorization header, the form's client_id and
// client_secret, or its client_assertion_type and client_assertion. Every
// failure is invalid_client (401) and audited; a wrong secret is throttled
// per client and caller address (429). An assertion is accepted for the
// audience of the token endpoint's URL or of the issuer, at all three
// endpoints, and once (its jti).
std::expected<ClientAuth, Refusal> authenticate_client(App& app, const http::Request& request, const Form& form);

}  // namespace authd::handlers::oidc
