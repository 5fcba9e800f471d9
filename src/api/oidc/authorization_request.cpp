// The checks of an authorization request's parameters shared by /authorize
// and /par (authorization_request.hpp).
#include "api/oidc/authorization_request.hpp"

#include <algorithm>
#include <charconv>

#include "authd/authorization_codes.hpp"
#include "authd/json.hpp"
#include "api/oidc/oidc.hpp"

namespace authd::handlers::oidc {

std::optional<std::int64_t> whole_number(const Query& query, std::string_view name) {
  const auto found = query.find(name);
  if (found == query.end()) return std::nullopt;
  std::int64_t value = -1;
  const auto& text = found->second;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 0) return std::nullopt;
  return value;
}

std::vector<std::string> split_words(std::string_view words) {
  std::vector<std::string> out;
  for (std::size_t from = 0; from < words.size();) {
    const auto end = std::min(words.find(' ', from), words.size());
    if (end > from) out.emplace_back(words.substr(from, end - from));
    from = end + 1;
  }
  return out;
}

std::optional<std::string> unallowed_scope(const OidcClient& client, std::string_view scope) {
  for (auto& wanted : split_words(scope)) {
    if (std::ranges::find(client.scopes, wanted) == client.scopes.end()) return std::move(wanted);
  }
  return std::nullopt;
}

std::optional<RequestRefusal> refused_parameters(const OidcClient& client, const Query& query) {
  if (query.contains("request")) return RequestRefusal{"request_not_supported", "request objects are not supported"};
  if (query.contains("request_uri")) {
    return RequestRefusal{"invalid_request", "request_uri comes from /par and goes only to /authorize"};
  }
  const auto response_type = param(query, "response_type");
  if (response_type.empty()) return RequestRefusal{"invalid_request", "response_type is required"};
  if (response_type != "code") {
    return RequestRefusal{"unsupported_response_type", "only response_type=code is supported"};
  }
  if (query.contains("response_mode") && param(query, "response_mode") != "query") {
    return RequestRefusal{"invalid_request", "only response_mode=query is supported"};
  }
  const auto scope = param(query, "scope");
  if (!has_word(scope, "openid")) return RequestRefusal{"invalid_scope", "scope must contain openid"};
  if (auto wanted = unallowed_scope(client, scope)) {
    return RequestRefusal{"invalid_scope", "scope " + *wanted + " is not allowed for this client"};
  }
  const auto challenge = param(query, "code_challenge");
  const auto method = param(query, "code_challenge_method");
  if (!challenge.empty() || !method.empty()) {
    if (method != "S256") {
      return RequestRefusal{"invalid_request", "code_challenge_method must be S256 (plain is refused)"};
    }
    if (!valid_pkce_challenge(challenge)) return RequestRefusal{"invalid_request", "code_challenge is not a S256 challenge"};
  } else if (client.is_public) {
    return RequestRefusal{"invalid_request", "a public client must use PKCE (code_challenge, S256)"};
  }
  const auto prompt = split_words(param(query, "prompt"));
  for (const auto& value : prompt) {
    if (value != "none" && value != "login" && value != "consent") {
      return RequestRefusal{"invalid_request", "prompt " + value + " is not supported"};
    }
    if (value == "none" && prompt.size() > 1) return RequestRefusal{"invalid_request", "prompt=none stands alone"};
  }
  if (query.contains("max_age") && !whole_number(query, "max_age")) {
    return RequestRefusal{"invalid_request", "max_age must be a non-negative integer"};
  }
  if (query.contains(kSignedInAfter) && !whole_number(query, kSignedInAfter)) {
    return RequestRefusal{"invalid_request", "signed_in_after must be a non-negative integer"};
  }
  if (param(query, "state").size() > 1024 || param(query, "nonce").size() > 1024) {
    return RequestRefusal{"invalid_request", "state or nonce too long"};
  }
  // The nonce goes into the ID token as JSON text, which bytes that are not
  // UTF-8 cannot be: refused here, before a code is issued for it.
  if (!Json::string(param(query, "nonce")).is_string()) {
    return RequestRefusal{"invalid_request", "nonce is not UTF-8 text"};
  }
  return std::nullopt;
}

}  // namespace authd::handlers::oidc
