// Parsers for the Authorization request header (RFC 7235, RFC 7617, RFC 6750).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "authd/credentials.hpp"
#include "authd/error.hpp"

namespace authd {

// "Basic <base64(user:pass)>"; the scheme is case-insensitive. The user-id
// may not be empty nor contain ':' (RFC 7617); the password may contain ':'.
// nullopt for anything malformed (other scheme, bad base64, no colon,
// control characters, extra parameters).
std::optional<BasicCredentials> parse_basic_authorization(std::string_view header);

// "Bearer <b64token>" (RFC 6750 §2.1). Returns a view into `header`.
// Errors: missing_token when the header is empty or names another scheme;
// invalid_request when it says Bearer but is malformed (no token, several
// tokens, characters outside the b64token syntax).
Result<std::string_view> parse_bearer_authorization(std::string_view header);

// The two halves of parse_bearer_authorization, for a caller that checks the
// token's syntax only when it does not recognise the token (the guard: a
// token verified before passed it already). bearer_token: the scheme and a
// token, whatever its characters; check_b64token: invalid_request unless
// `token` is a b64token.
Result<std::string_view> bearer_token(std::string_view header);
Result<void> check_b64token(std::string_view token);

}  // namespace authd
