// Client authentication at the OpenID provider's client endpoints (POST
// /token, /revoke, /introspect): client_secret_basic, client_secret_post, or
// none (a public client's client_id alone). RFC 6749 §2.3.1, §5.2.
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

// Who is calling, from the Authorization header or the form's client_id and
// client_secret. Every failure is invalid_client (401) and audited; a wrong
// secret is throttled per client and caller address (429).
std::expected<ClientAuth, Refusal> authenticate_client(App& app, const http::Request& request, const Form& form);

}  // namespace authd::handlers::oidc
