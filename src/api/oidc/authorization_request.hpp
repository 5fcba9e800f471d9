// An authorization request's parameters as /authorize and /par (RFC 9126)
// both check them (OpenID Connect Core 1.0 §3.1.2.1, RFC 6749 §4.1.1,
// RFC 7636): response_type code, scope with openid and only the client's
// scopes, PKCE S256 (required of a public client), prompt, max_age, lengths.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "authd/oidc_clients.hpp"

namespace authd::handlers::oidc {

using Query = std::map<std::string, std::string, std::less<>>;

// authd's own parameter on the way back from a fresh sign-in (prompt=login):
// the session must have signed in at or after this Unix time.
inline constexpr std::string_view kSignedInAfter = "signed_in_after";

// An OAuth error for the client: {error, error_description}.
struct RequestRefusal {
  std::string error;
  std::string description;
};

// What is wrong with `query` for `client` (its redirect_uri already
// checked); nullopt when acceptable.
std::optional<RequestRefusal> refused_parameters(const OidcClient& client, const Query& query);

// A non-negative integer parameter; nullopt when absent or malformed.
std::optional<std::int64_t> whole_number(const Query& query, std::string_view name);

// The words of a space-separated list (a scope, a prompt).
std::vector<std::string> split_words(std::string_view words);

// The first word of `scope` that `client` is not registered for; nullopt
// when it may ask for all of them (/authorize, /par, /device_authorization).
std::optional<std::string> unallowed_scope(const OidcClient& client, std::string_view scope);

}  // namespace authd::handlers::oidc
