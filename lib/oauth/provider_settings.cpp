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
    for (const auto provider : settings::list_items(value)) {
      if (!valid_provider_name(provider)) {
        return fail(Errc::config,
                    "provider name '" + std::string(provider) + "' must be lower-case letters, digits or _");
      }
      declared_.emplace(provider);
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

std::vector<std::string> OAuthProviderSettings::variables() const {
  std::vector<std::string> variables{"AUTHD_OAUTH_PROVIDERS"};
  for (const auto& setting : provider_setting_names()) variables.push_back("AUTHD_OAUTH_" + upper(setting));
  for (const auto& provider : declared_) {
    for (const auto& setting : provider_setting_names()) {
      variables.push_back("AUTHD_OAUTH_" + upper(provider) + "_" + upper(setting));
    }
  }
  return variables;
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

std::vector<settings::Setting> OAuthProviderSettings::reference() const {
  auto row = [](std::string setting, settings::Kind kind, std::string doc, std::string value = {}) {
    settings::Setting s;
    s.name = std::move(setting);
    s.kind = kind;
    s.doc = std::move(doc);
    s.show = [value = std::move(value)] { return value; };
    return s;
  };
  using settings::Kind;
  auto token_auth = row("oauth_token_auth", Kind::choice,
                        "How the client authenticates at the token endpoint: post (client_secret in the form "
                        "body) or basic (HTTP Basic).",
                        "post");
  token_auth.choices = {"post", "basic"};
  return settings::grouped("Third-party sign-in", {
      row("oauth_issuer", Kind::text,
          "The OpenID Connect issuer of the provider (e.g. https://accounts.google.com): its endpoints come from "
          "discovery and the ID token is checked against it. Third-party sign-in (GET /oauth) is off, answering "
          "501, until a provider is configured. One provider takes the oauth_<setting> names (or "
          "AUTHD_OAUTH_<SETTING>); several take `oauth.<name>.<setting>` lines (name: lower-case letters, digits, "
          "_), and GET /oauth?provider=<name> starts with that one (docs/oauth.md). A provider needs client_id, "
          "redirect_uri and either issuer or authorization_url and token_url."),
      row("oauth_client_id", Kind::text, "The client id registered at the provider."),
      row("oauth_client_secret", Kind::secret, "The client secret registered at the provider; never logged."),
      row("oauth_redirect_uri", Kind::text,
          "This service's GET /oauth as registered at the provider, e.g. https://example.com/oauth."),
      row("oauth_scopes", Kind::text,
          "The scopes asked for, separated by spaces; empty with an issuer = `openid profile email`."),
      row("oauth_authorization_url", Kind::text,
          "The authorization endpoint, for a plain OAuth 2.0 provider without an issuer (e.g. GitHub's "
          "https://github.com/login/oauth/authorize); with an issuer it overrides discovery."),
      row("oauth_token_url", Kind::text,
          "The token endpoint, for a plain OAuth 2.0 provider; with an issuer it overrides discovery."),
      row("oauth_userinfo_url", Kind::text,
          "The user endpoint the identity is read from; needed by a plain OAuth 2.0 provider (no issuer), which "
          "has no ID token."),
      row("oauth_jwks_url", Kind::text,
          "The provider's JSON Web Key Set, overriding discovery; needs an issuer (ID tokens are checked against "
          "it)."),
      std::move(token_auth),
      row("oauth_subject_claim", Kind::text,
          "The claim (or user-endpoint field) naming the user at the provider; empty = sub with an issuer, id "
          "without."),
      row("oauth_username_claim", Kind::text,
          "The claim (or user-endpoint field) a new account's username is made from; empty = "
          "preferred_username with an issuer, login without."),
      row("oauth_providers", Kind::list,
          "The provider names, separated by spaces or commas, whose settings come from the environment: "
          "AUTHD_OAUTH_PROVIDERS=github,google reads AUTHD_OAUTH_GITHUB_CLIENT_ID and the like. In the file, "
          "`oauth.<name>.<setting>` lines name their provider by themselves."),
  });
}

std::vector<settings::Setting> oauth_settings(OAuthSettings& s) {
  return settings::grouped("Third-party sign-in", {
      settings::boolean("oauth_keep_role", s.keep_role,
                        "false (the spec's behaviour): every third-party sign-in sets the account's role to user. "
                        "true: a role an operator set with authctl survives later third-party sign-ins."),
      settings::milliseconds("oauth_connect_timeout_ms", s.connect_timeout, 100, 60000,
                             "How long connecting to an identity provider may take, in milliseconds."),
      settings::milliseconds("oauth_timeout_ms", s.total_timeout, 100, 120000,
                             "How long one whole exchange with an identity provider may take, in milliseconds."),
      settings::seconds("oauth_state_ttl", s.state_ttl, 30, 3600,
                        "How long a started third-party sign-in may take (the lifetime of its state cookie), in "
                        "seconds."),
  });
}

}  // namespace authd
