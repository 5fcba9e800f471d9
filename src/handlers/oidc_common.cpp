#include "handlers/oidc.hpp"

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

std::string percent_encoded(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    const bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                            c == '-' || c == '.' || c == '_' || c == '~';
    if (unreserved) {
      out += c;
    } else {
      out += '%';
      out += kHex[byte >> 4];
      out += kHex[byte & 0x0f];
    }
  }
  return out;
}

std::string with_query(std::string_view uri, const std::vector<std::pair<std::string, std::string>>& params) {
  std::string out(uri);
  char separator = uri.find('?') == std::string_view::npos ? '?' : '&';
  for (const auto& [name, value] : params) {
    out += separator;
    out += percent_encoded(name) + "=" + percent_encoded(value);
    separator = '&';
  }
  return out;
}

std::string encoded_query(const std::map<std::string, std::string, std::less<>>& params) {
  std::string out;
  for (const auto& [name, value] : params) {
    if (!out.empty()) out += '&';
    out += percent_encoded(name) + "=" + percent_encoded(value);
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

http::Response continue_page(std::string_view location, std::string_view base_path) {
  http::Response response;
  response.status = 200;
  response.header("Content-Type", "text/html; charset=utf-8");
  page_headers(response);
  const std::string href = html_escaped(location);
  response.body = "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Continue</title>"
                  "<meta http-equiv=\"refresh\" content=\"0; url=" + href + "\">"
                  "<link rel=\"icon\" href=\"" + html_escaped(base_path) + "/assets/icon.svg\" type=\"image/svg+xml\"></head><body><main>"
                  "<p><a id=\"continue\" href=\"" + href + "\">Continue</a></p></main></body></html>";
  return response;
}

std::string html_escaped(std::string_view text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

void page_headers(http::Response& response) {
  response.header("Cache-Control", "no-store")
      .header("X-Frame-Options", "DENY")
      .header("Content-Security-Policy",
              "default-src 'none'; style-src 'self'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'");
}

}  // namespace authd::handlers::oidc
