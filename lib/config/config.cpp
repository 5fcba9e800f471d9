#include "authd/config.hpp"

#include "config/oauth_settings.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <fstream>
#include <map>
#include <sstream>

namespace authd {
namespace {

using Setter = Result<void> (*)(Config&, std::string_view);

template <class Int>
Result<Int> parse_number(std::string_view text, Int min, Int max) {
  Int value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < min || value > max) {
    return fail(Errc::config, "expected a whole number from " + std::to_string(min) + " to " + std::to_string(max));
  }
  return value;
}

Result<bool> parse_bool(std::string_view text) {
  if (text == "true" || text == "yes" || text == "on" || text == "1") return true;
  if (text == "false" || text == "no" || text == "off" || text == "0") return false;
  return fail(Errc::config, "expected true or false");
}

// Assigns a parsed number to `field`, or passes the parse error on.
#define AUTHD_NUMBER(field, type, min, max)                                  \
  [](Config& c, std::string_view v) -> Result<void> {                        \
    auto n = parse_number<type>(v, min, max);                                \
    if (!n) return std::unexpected(n.error());                               \
    c.field = *n;                                                            \
    return {};                                                               \
  }
#define AUTHD_SECONDS(field, min, max)                                       \
  [](Config& c, std::string_view v) -> Result<void> {                        \
    auto n = parse_number<long long>(v, min, max);                           \
    if (!n) return std::unexpected(n.error());                               \
    c.field = std::chrono::seconds{*n};                                      \
    return {};                                                               \
  }
#define AUTHD_STRING(field)                                                  \
  [](Config& c, std::string_view v) -> Result<void> {                        \
    c.field = std::string(v);                                                \
    return {};                                                               \
  }

const std::map<std::string, Setter, std::less<>>& settings() {
  static const std::map<std::string, Setter, std::less<>> table{
      {"state_dir", AUTHD_STRING(state_dir)},
      {"signing_key_file", AUTHD_STRING(signing_key_file)},
      {"signing_key", AUTHD_STRING(signing_key_hex)},
      {"map_size_mb", AUTHD_NUMBER(map_size_mb, std::size_t, 1, 1u << 20)},
      {"sync_writes",
       [](Config& c, std::string_view v) -> Result<void> {
         auto b = parse_bool(v);
         if (!b) return std::unexpected(b.error());
         c.sync_writes = *b;
         return {};
       }},
      {"workers", AUTHD_NUMBER(workers, unsigned, 0, 256)},
      {"hash_workers", AUTHD_NUMBER(hash_workers, unsigned, 0, 64)},
      {"upstream_workers", AUTHD_NUMBER(upstream_workers, unsigned, 1, 64)},
      {"queue_limit", AUTHD_NUMBER(queue_limit, std::size_t, 1, 100000)},
      {"signin_throttle",
       [](Config& c, std::string_view v) -> Result<void> {
         auto b = parse_bool(v);
         if (!b) return std::unexpected(b.error());
         c.throttle.enabled = *b;
         return {};
       }},
      {"signin_user_threshold", AUTHD_NUMBER(throttle.user_threshold, unsigned, 1, 100000)},
      {"signin_address_threshold", AUTHD_NUMBER(throttle.address_threshold, unsigned, 1, 1000000)},
      {"signin_window", AUTHD_SECONDS(throttle.window, 1, 7LL * 24 * 3600)},
      {"signin_first_delay", AUTHD_SECONDS(throttle.first_delay, 1, 3600)},
      {"signin_user_max_delay", AUTHD_SECONDS(throttle.user_max_delay, 1, 24LL * 3600)},
      {"signin_address_max_delay", AUTHD_SECONDS(throttle.address_max_delay, 1, 24LL * 3600)},
      {"signin_known_address_ttl", AUTHD_SECONDS(throttle.known_address_ttl, 0, 366LL * 24 * 3600)},
      {"max_body_bytes", AUTHD_NUMBER(max_body_bytes, std::size_t, 1024, 16u << 20)},
      {"max_json_depth", AUTHD_NUMBER(max_json_depth, std::size_t, 2, 256)},
      {"token_ttl", AUTHD_SECONDS(token.ttl, 1, 366LL * 24 * 3600)},
      {"token_leeway", AUTHD_SECONDS(token.leeway, 0, 300)},
      {"token_issuer", AUTHD_STRING(token.issuer)},
      {"token_cache_entries", AUTHD_NUMBER(token.cache_entries, std::size_t, 0, 1u << 20)},
      {"token_audience", AUTHD_STRING(token.audience)},
      {"cookie_secure",
       [](Config& c, std::string_view v) -> Result<void> {
         if (v == "auto") c.cookie_secure = CookieSecure::automatic;
         else if (v == "always") c.cookie_secure = CookieSecure::always;
         else if (v == "never") c.cookie_secure = CookieSecure::never;
         else return fail(Errc::config, "expected auto, always or never");
         return {};
       }},
      {"argon2_iterations", AUTHD_NUMBER(argon2.iterations, std::uint32_t, 1, 64)},
      {"argon2_memory_kib", AUTHD_NUMBER(argon2.memory_kib, std::uint32_t, 8, 4u << 20)},
      {"argon2_parallelism", AUTHD_NUMBER(argon2.parallelism, std::uint32_t, 1, 16)},
      {"username_max_length", AUTHD_NUMBER(credentials.username_max_length, std::size_t, 1, 256)},
      {"password_min_length", AUTHD_NUMBER(credentials.password_min_length, std::size_t, 1, 1024)},
      {"password_max_length", AUTHD_NUMBER(credentials.password_max_length, std::size_t, 8, 4096)},
      {"fullname_max_length", AUTHD_NUMBER(credentials.fullname_max_length, std::size_t, 1, 4096)},
      {"email_max_length", AUTHD_NUMBER(credentials.email_max_length, std::size_t, 3, 1024)},
      {"oauth_keep_role",
       [](Config& c, std::string_view v) -> Result<void> {
         auto b = parse_bool(v);
         if (!b) return std::unexpected(b.error());
         c.oauth.keep_role = *b;
         return {};
       }},
      {"oauth_connect_timeout_ms",
       [](Config& c, std::string_view v) -> Result<void> {
         auto n = parse_number<long long>(v, 100, 60000);
         if (!n) return std::unexpected(n.error());
         c.oauth.connect_timeout = std::chrono::milliseconds{*n};
         return {};
       }},
      {"oauth_timeout_ms",
       [](Config& c, std::string_view v) -> Result<void> {
         auto n = parse_number<long long>(v, 100, 120000);
         if (!n) return std::unexpected(n.error());
         c.oauth.total_timeout = std::chrono::milliseconds{*n};
         return {};
       }},
      {"oauth_state_ttl", AUTHD_SECONDS(oauth.state_ttl, 30, 3600)},
      {"authorize_rule",  // repeatable in the file: each line adds rules
       [](Config& c, std::string_view v) -> Result<void> {
         auto more = AccessRules::parse(v);
         if (!more) return std::unexpected(more.error());
         c.access_rules.append(*more);
         return {};
       }},
      {"portal_return_origins",  // a list, separated by spaces or commas; replaces the default (none)
       [](Config& c, std::string_view v) -> Result<void> {
         std::vector<std::string> origins;
         while (!v.empty()) {
           const auto end = std::min(v.find_first_of(" ,\t"), v.size());
           if (const auto item = v.substr(0, end); !item.empty()) {
             auto origin = normalized_origin(item);
             if (!origin) return fail(Errc::config, "'" + std::string(item) + "' is not an origin like https://app.example.com");
             origins.push_back(std::move(*origin));
           }
           v.remove_prefix(std::min(end + 1, v.size()));
         }
         c.portal.return_origins = std::move(origins);
         return {};
       }},
      {"portal_default_return", AUTHD_STRING(portal.default_return)},
      {"log_level",
       [](Config& c, std::string_view v) -> Result<void> {
         if (v != "error" && v != "warn" && v != "info" && v != "debug") {
           return fail(Errc::config, "expected error, warn, info or debug");
         }
         c.log_level = std::string(v);
         return {};
       }},
  };
  return table;
}

#undef AUTHD_NUMBER
#undef AUTHD_SECONDS
#undef AUTHD_STRING

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

std::string_view unquote(std::string_view value) {
  if (value.size() >= 2 && value.front() == '"' && value.back() == '"') return value.substr(1, value.size() - 2);
  return value;
}

using config_detail::OAuthCollector;

Result<void> apply(Config& config, OAuthCollector& oauth, std::string_view name, std::string_view value,
                   const std::string& where) {
  auto provider_setting = oauth.apply(name, value);
  if (!provider_setting) return fail(Errc::config, where + ": " + std::string(name) + ": " + provider_setting.error().message);
  if (*provider_setting) return {};
  const auto& table = settings();
  const auto setting = table.find(name);
  if (setting == table.end()) return fail(Errc::config, where + ": unknown setting '" + std::string(name) + "'");
  if (auto ok = setting->second(config, value); !ok) {
    return fail(Errc::config, where + ": " + std::string(name) + ": " + ok.error().message);
  }
  return {};
}

Result<void> apply_file(Config& config, OAuthCollector& oauth, const std::filesystem::path& file,
                        bool optional_file) {
  std::error_code ec;
  if (optional_file && !std::filesystem::exists(file, ec)) return {};
  std::ifstream in(file);
  if (!in || !std::filesystem::is_regular_file(file, ec)) {
    return fail(Errc::config, "cannot read config file " + file.string());
  }
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const auto where = file.string() + ":" + std::to_string(number);
    auto text = trim(std::string_view(line).substr(0, line.find('#')));
    if (text.empty()) continue;
    const auto eq = text.find('=');
    if (eq == std::string_view::npos) return fail(Errc::config, where + ": expected 'name = value'");
    if (auto ok = apply(config, oauth, trim(text.substr(0, eq)), unquote(trim(text.substr(eq + 1))), where); !ok) {
      return ok;
    }
  }
  if (in.bad()) return fail(Errc::config, "cannot read config file " + file.string());
  return {};
}

Result<void> apply_environment(Config& config, OAuthCollector& oauth, const EnvLookup& env) {
  for (const auto& [name, setter] : settings()) {
    std::string variable = "AUTHD_" + name;
    std::transform(variable.begin(), variable.end(), variable.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    if (name == "authorize_rule") variable = "AUTHD_AUTHORIZE_RULES";  // a list, ';'-separated
    if (const char* value = env(variable.c_str())) {
      if (auto ok = apply(config, oauth, name, trim(value), "environment " + variable); !ok) return ok;
    }
  }
  return oauth.apply_environment(env);
}

Result<void> validate(const Config& config) {
  if (config.state_dir.empty()) return fail(Errc::config, "state_dir must not be empty");
  if (config.argon2.memory_kib < 8 * config.argon2.parallelism) {
    return fail(Errc::config, "argon2_memory_kib must be at least 8 x argon2_parallelism");
  }
  if (config.credentials.password_min_length > config.credentials.password_max_length) {
    return fail(Errc::config, "password_min_length exceeds password_max_length");
  }
  if (!return_address_allowed(config.portal.default_return, config.portal.return_origins)) {
    return fail(Errc::config, "portal_default_return must be a path on this site (/account) or a URL on an origin of "
                              "portal_return_origins");
  }
  if (config.token.issuer.empty() || config.token.audience.empty()) {
    return fail(Errc::config, "token_issuer and token_audience must not be empty");
  }
  return {};
}

}  // namespace

Result<Config> load_config(const std::filesystem::path& file, const EnvLookup& env, bool optional_file) {
  Config config;
  OAuthCollector oauth;
  if (!file.empty()) {
    if (auto ok = apply_file(config, oauth, file, optional_file); !ok) return std::unexpected(ok.error());
  }
  if (auto ok = apply_environment(config, oauth, env); !ok) return std::unexpected(ok.error());
  if (auto ok = oauth.finish(config.oauth); !ok) return std::unexpected(ok.error());
  if (auto ok = validate(config); !ok) return std::unexpected(ok.error());
  return config;
}

ConfigSource config_source(const EnvLookup& env, const std::filesystem::path& compiled_default) {
  if (const char* explicit_file = env("AUTHD_CONFIG"); explicit_file && *explicit_file) {
    return {explicit_file, false};
  }
  return {compiled_default, true};
}

std::vector<std::string> config_setting_names() {
  std::vector<std::string> names;
  for (const auto& [name, setter] : settings()) names.push_back(name);
  names.emplace_back("oauth_providers");
  for (const auto& setting : OAuthCollector::setting_names()) names.push_back("oauth_" + setting);
  return names;
}

}  // namespace authd
