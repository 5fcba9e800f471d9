#include "api/oidc/oidc.hpp"

#include <algorithm>
#include <charconv>

#include "authd/clock.hpp"
#include "authd/text.hpp"
#include "http/query.hpp"

namespace authd::handlers::oidc {

std::string issuer(const App& app, const http::Request& request) {
  const auto& configured = app.core->settings().mail.public_url;
  if (!configured.empty()) return configured;
  const auto host = request.param("HTTP_HOST");
  return std::string(request.https ? "https://" : "http://") + std::string(host.empty() ? "localhost" : host) +
         request.base_path;
}

Result<void> require_provider(const App& app) {
  if (!app.core->settings().oidc.provider || !app.core->id_token_keys()) {
    return fail(Errc::not_found, "authd is no OpenID provider here (oidc_provider = false)");
  }
  return {};
}

std::string param(const std::map<std::string, std::string, std::less<>>& fields, std::string_view name) {
  const auto found = fields.find(name);
  return found == fields.end() ? std::string() : found->second;
}

bool has_word(std::string_view words, std::string_view word) {
  for (std::size_t from = 0; from < words.size();) {
    const auto end = std::min(words.find(' ', from), words.size());
    if (words.substr(from, end - from) == word) return true;
    from = end + 1;
  }
  return false;
}

std::string with_query(std::string_view uri, const std::vector<std::pair<std::string, std::string>>& params) {
  std::string out(uri);
  char separator = uri.find('?') == std::string_view::npos ? '?' : '&';
  for (const auto& [name, value] : params) {
    out += separator;
    out += http::percent_encoded(name) + "=" + http::percent_encoded(value);
    separator = '&';
  }
  return out;
}

std::string encoded_query(const std::map<std::string, std::string, std::less<>>& params) {
  std::string out;
  for (const auto& [name, value] : params) {
    if (!out.empty()) out += '&';
    out += http::percent_encoded(name) + "=" + http::percent_encoded(value);
  }
  return out;
}

http::Response oauth_error(int status, std::string_view error, std::string_view description) {
  Json body = Json::object();
  body.set("error", Json::string(error)).set("error_description", Json::string(description));
  auto response = http::Response::json(status, body);
  response.header("Cache-Control", "no-store");
  return response;
}

http::Response redirect(std::string_view location, int status) {
  http::Response response;
  response.status = status;
  response.header("Location", std::string(location));
  page_headers(response);
  return response;
}

http::Response page(int status, std::string_view title, std::string_view base_path, std::string_view content,
                    std::string_view head) {
  http::Response response;
  response.status = status;
  response.header("Content-Type", "text/html; charset=utf-8");
  page_headers(response);
  const std::string base = text::html_escaped(base_path);
  response.body = "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + text::html_escaped(title) +
                  "</title>" + std::string(head) +
                  "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
                  "<link rel=\"icon\" href=\"" + base + "/assets/icon.svg\" type=\"image/svg+xml\">"
                  "<link rel=\"stylesheet\" href=\"" + base + "/assets/portal.css\"></head><body><main>" +
                  std::string(content) + "</main></body></html>";
  return response;
}

http::Response continue_page(std::string_view location, std::string_view base_path) {
  const std::string href = text::html_escaped(location);
  return page(200, "Continue", base_path, "<p><a id=\"continue\" href=\"" + href + "\">Continue</a></p>",
              "<meta http-equiv=\"refresh\" content=\"0; url=" + href + "\">");
}

void page_headers(http::Response& response) {
  response.header("Cache-Control", "no-store")
      .header("X-Frame-Options", "DENY")
      .header("Content-Security-Policy",
              "default-src 'none'; style-src 'self'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'");
}

Result<void> client_still_registered(App& app, const TokenClaims& claims) {
  const auto found = claims.extra.find(kClientIdClaim);
  if (found == claims.extra.end() || found->second.empty()) return fail(Errc::invalid_token, "the token names no client");
  auto client = app.core->oidc_clients().find(found->second);
  if (client) return {};
  if (client.error().code == Errc::not_found) return fail(Errc::invalid_token, "the token's client has been removed");
  return std::unexpected(client.error());
}

// When the session's user last authenticated: its auth_time claim (kept across
// refreshes), or, for a token from before that claim, when it was issued.
std::int64_t authenticated_at(const TokenClaims& claims) {
  if (const auto found = claims.extra.find(kAuthTimeClaim); found != claims.extra.end()) {
    std::int64_t when = 0;
    const auto& text = found->second;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), when);
    if (ec == std::errc() && end == text.data() + text.size() && when > 0) return when;
  }
  return claims.issued_at;
}

// The browser's authd session, re-authenticated as on protected routes (the
// second-factor policy included). nullopt when there is none, or when the
// cookie holds a service client's token.
std::optional<Principal> session_of(App& app, const http::Request& request) {
  const auto cookie = http::cookie_value(request.param("HTTP_COOKIE"), "auth");
  if (cookie.empty()) return std::nullopt;
  auto principal = app.core->guard().check("Bearer " + std::string(cookie), std::nullopt, unix_now());
  // A service client's token (client_credentials) is no person signing in.
  if (!principal || is_service_subject(principal->claims().subject)) return std::nullopt;
  return std::move(*principal);
}

// The session's amr claim ("pwd", "pwd otp", ...), "pwd" when it has none.
std::string amr_of(const Principal& principal) {
  const auto found = principal.claims().extra.find(kAmrClaim);
  if (found != principal.claims().extra.end() && !found->second.empty()) return found->second;
  return "pwd";
}

}  // namespace authd::handlers::oidc
