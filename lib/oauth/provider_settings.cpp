#include "authd/oauth_config.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>

#include "authd/text.hpp"

namespace authd {
namespace {

using Field = std::string OAuthProvider::*;
constexpr std::array<std::pair<std::string_view, Field>, 11> kTextSettings{{
    {"issuer", &OAuthProvider::issuer},
    {"client_id", &OAuthProvider::client_id},
    {"client_secret", &OAuthProvider::client_secret},
    {"redirect_uri", &OAuthProvider::redirect_uri},
    {"scopes", &OAuthProvider::scopes},
    {"authorization_url", &OAuthProvider::authorization_url},
    {"token_url", &OAuthProvider::token_url},
    {"userinfo_url", &OAuthProvider::userinfo_url},
    {"jwks_url", &OAuthProvider::jwks_url},
    {"subject_claim", &OAuthProvider::subject_claim},
    {"username_claim", &OAuthProvider::username_claim},
}};
constexpr std::string_view kTokenAuth = "token_auth";
constexpr std::string_view kDefault = "default";

bool valid_provider_name(std::string_view name) {
  if (name.empty() || name.size() > 32) return false;
  return std::all_of(name.begin(), name.end(), [](unsigned char c) {
    return std::islower(c) || std::isdigit(c) || c == '_';
  });
}

bool is_setting(std::string_view setting) {
  if (setting == kTokenAuth) return true;
  return std::any_of(kTextSettings.begin(), kTextSettings.end(), [&](const auto& s) { return s.first == setting; });
}

std::string upper(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return out;
}

bool is_http_url(std::string_view url) { return url.starts_with("https://") || url.starts_with("http://"); }

Result<void> validate(OAuthProvider& p) {
  const auto where = "oauth provider '" + p.name + "': ";
  if (p.client_id.empty()) return fail(Errc::config, where + "client_id is required");
  if (p.redirect_uri.empty()) return fail(Errc::config, where + "redirect_uri is required");
  if (p.issuer.empty() && (p.authorization_url.empty() || p.token_url.empty())) {
    return fail(Errc::config, where + "set issuer, or authorization_url and token_url");
  }
  if (!p.jwks_url.empty() && p.issuer.empty()) {
    return fail(Errc::config, where + "jwks_url needs issuer (ID tokens are checked against it)");
  }
  if (!p.openid() && p.userinfo_url.empty()) {
    return fail(Errc::config, where + "a plain OAuth 2.0 provider (no issuer, no jwks_url) needs userinfo_url");
  }
  for (const auto* url : {&p.issuer, &p.redirect_uri, &p.authorization_url, &p.token_url, &p.userinfo_url, &p.jwks_url}) {
    if (!url->empty() && !is_http_url(*url)) return fail(Errc::config, where + "'" + *url + "' is not an http(s) URL");
  }
  if (p.scopes.empty() && p.openid()) p.scopes = "openid profile email";
  if (p.subject_claim.empty()) p.subject_claim = p.openid() ? "sub" : "id";
  if (p.username_claim.empty()) p.username_claim = p.openid() ? "preferred_username" : "login";
  return {};
}

}  // namespace

Result<void> OAuthProviderSettings::set(const std::string& provider, std::string_view setting, std::string_view value) {
  auto& p = providers_[provider];
  p.name = provider;
  if (setting == kTokenAuth) {
    if (value == "post") p.token_auth = TokenEndpointAuth::post;
    else if (value == "basic") p.token_auth = TokenEndpointAuth::basic;
    else return fail(Errc::config, "expected post or basic");
    return {};
  }
  for (const auto& [name, field] : kTextSettings) {
    if (name == setting) p.*field = std::string(value);
  }
  return {};
}

Result<bool> OAuthProviderSettings::assign(std::string_view name, std::string_view value) {
  if (name == "oauth_providers") {
    std::string list(value);
    std::replace(list.begin(), list.end(), ',', ' ');
    std::size_t start = 0;
    while ((start = list.find_first_not_of(' ', start)) != std::string::npos) {
      const auto end = std::min(list.find(' ', start), list.size());
      const auto provider = list.substr(start, end - start);
      if (!valid_provider_name(provider)) {
        return fail(Errc::config, "provider name '" + provider + "' must be lower-case letters, digits or _");
      }
      declared_.insert(provider);
      start = end;
    }
    return true;
  }
  if (name.starts_with("oauth.")) {
    const auto rest = name.substr(6);
    const auto dot = rest.find('.');
    if (dot == std::string_view::npos) return false;
    const auto provider = rest.substr(0, dot);
    const auto setting = rest.substr(dot + 1);
    if (!valid_provider_name(provider)) {
      return fail(Errc::config, "provider name '" + std::string(provider) + "' must be lower-case letters, digits or _");
    }
    if (!is_setting(setting)) return false;
    declared_.insert(std::string(provider));
    if (auto ok = set(std::string(provider), setting, value); !ok) return std::unexpected(ok.error());
    return true;
  }
  if (name.starts_with("oauth_") && is_setting(name.substr(6))) {
    if (auto ok = set(std::string(kDefault), name.substr(6), value); !ok) return std::unexpected(ok.error());
    return true;
  }
  return false;
}

Result<void> OAuthProviderSettings::assign_environment(const EnvLookup& env) {
  if (const char* list = env("AUTHD_OAUTH_PROVIDERS")) {
    if (auto ok = assign("oauth_providers", list); !ok) return std::unexpected(ok.error());
  }
  auto read = [&](const std::string& provider, const std::string& prefix) -> Result<void> {
    for (const auto& setting : provider_setting_names()) {
      const auto variable = prefix + upper(setting);
      if (const char* value = env(variable.c_str())) {
        if (auto ok = set(provider, setting, value); !ok) {
          return fail(Errc::config, "environment " + variable + ": " + ok.error().message);
        }
      }
    }
    return {};
  };
  if (auto ok = read(std::string(kDefault), "AUTHD_OAUTH_"); !ok) return ok;
  for (const auto& provider : declared_) {
    if (auto ok = read(provider, "AUTHD_OAUTH_" + upper(provider) + "_"); !ok) return ok;
  }
  return {};
}

Result<void> OAuthProviderSettings::finish() {
  auto& settings = target_;
  settings.providers.clear();
  for (auto& [name, provider] : providers_) {
    if (auto ok = validate(provider); !ok) return ok;
    settings.providers.push_back(provider);
  }
  for (const auto& name : declared_) {
    if (!providers_.contains(name)) {
      return fail(Errc::config, "oauth provider '" + name + "' is listed but has no settings");
    }
  }
  return {};
}

std::vector<std::string> OAuthProviderSettings::provider_setting_names() {
  std::vector<std::string> names;
  for (const auto& [name, field] : kTextSettings) names.emplace_back(name);
  names.emplace_back(kTokenAuth);
  return names;
}

std::vector<std::string> OAuthProviderSettings::names() const {
  std::vector<std::string> names{"oauth_providers"};
  for (const auto& setting : provider_setting_names()) names.push_back("oauth_" + setting);
  return names;
}

std::vector<std::string> OAuthProviderSettings::describe() const {
  std::vector<std::string> lines;
  for (const auto& p : target_.providers) {
    const auto prefix = "oauth." + p.name + ".";
    for (const auto& [name, field] : kTextSettings) {
      const std::string& value = p.*field;
      if (value.empty()) continue;
      lines.push_back(prefix + std::string(name) + " = " + (name == "client_secret" ? "(set)" : value));
    }
    lines.push_back(prefix + std::string(kTokenAuth) + " = " + (p.token_auth == TokenEndpointAuth::basic ? "basic" : "post"));
  }
  return lines;
}

std::vector<settings::Setting> oauth_settings(OAuthSettings& s) {
  return {
      settings::boolean("oauth_keep_role", s.keep_role,
                        "false (the spec): a third-party sign-in sets role user; true keeps an operator's role"),
      settings::milliseconds("oauth_connect_timeout_ms", s.connect_timeout, 100, 60000,
                             "connect timeout for calls to identity providers"),
      settings::milliseconds("oauth_timeout_ms", s.total_timeout, 100, 120000,
                             "total timeout for one call to an identity provider"),
      settings::seconds("oauth_state_ttl", s.state_ttl, 30, 3600, "how long a started sign-in may take"),
  };
}

}  // namespace authd
