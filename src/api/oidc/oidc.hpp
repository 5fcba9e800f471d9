// What the OpenID provider's routes share (oidc_*.cpp): the issuer, the
// OAuth error answers, URL building.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "api/route.hpp"

namespace authd::handlers::oidc {

// public_url when set (stable, what relying parties are configured with),
// else this request's scheme, Host and base path.
std::string issuer(const App& app, const http::Request& request);

// Error not_found unless oidc_provider is on.
Result<void> require_provider(const App& app);

// The value of `name` in a parsed query or form ("" when absent).
std::string param(const std::map<std::string, std::string, std::less<>>& fields, std::string_view name);
// Whether the space-separated list `words` (a scope, a prompt) holds `word`.
bool has_word(std::string_view words, std::string_view word);

// `uri` with `params` added to its query (RFC 6749 §3.1.2: keep what it has).
std::string with_query(std::string_view uri, const std::vector<std::pair<std::string, std::string>>& params);
// name=value&... of `params`, percent-encoded.
std::string encoded_query(const std::map<std::string, std::string, std::less<>>& params);

// A protocol error body (RFC 6749 §5.2): {"error","error_description"}, no-store.
http::Response oauth_error(int status, std::string_view error, std::string_view description);

// A 302 (or `status`) to `location`, never cached, never framed.
http::Response redirect(std::string_view location, int status = 302);

// A page that sends the browser on to `location` (meta refresh, and a link).
// For the answer of a form post: the front servers' CSP has form-action
// 'self', which browsers apply to the redirects after a post too, so a 30x
// to the client's origin would be blocked; a refresh is a new navigation.
http::Response continue_page(std::string_view location, std::string_view base_path);

// One of authd's own OpenID pages in the portal's look: `content` (HTML)
// inside <main>, `head` (HTML) added to the <head>, the headers of
// page_headers(). The consent page, the refusal page, continue_page.
http::Response page(int status, std::string_view title, std::string_view base_path, std::string_view content,
                    std::string_view head = {});

// Headers of authd's own OpenID pages: no framing, no cache, a strict CSP.
void page_headers(http::Response& response);

// Error invalid_token unless the client a token was issued to (its client_id
// claim) is still registered: a removed client's access tokens end with it.
// Read from the store each time (every node sees a removal at once).
Result<void> client_still_registered(App& app, const TokenClaims& claims);

// The browser's authd session (the `auth` cookie), re-authenticated as on
// protected routes (the second-factor policy included). nullopt when there is
// none, or when the cookie holds a service client's token.
std::optional<Principal> session_of(App& app, const http::Request& request);
// When that session's user last signed in (its auth_time claim, else its iat).
std::int64_t authenticated_at(const TokenClaims& claims);
// How: its amr claim ("pwd", "pwd otp", ...), "pwd" when it has none.
std::string amr_of(const Principal& principal);

}  // namespace authd::handlers::oidc
