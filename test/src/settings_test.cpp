#include "program/app.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>

#include "../unit/test_support.hpp"

namespace authd {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// The program's settings as authd loads them: `file` (empty: none), then
// the environment. With optional_file, a missing file gives the defaults.
Result<ProgramSettings> load_config(const fs::path& file, const EnvLookup& env, bool optional_file = false) {
  const EnvLookup with_file = [&](const char* name) -> const char* {
    if (std::string_view(name) == "AUTHD_CONFIG") return nullptr;
    return env(name);
  };
  if (file.empty()) return load_program_settings(with_file, {});
  if (!optional_file) {
    const std::string path = file.string();
    return load_program_settings([&](const char* name) -> const char* {
      if (std::string_view(name) == "AUTHD_CONFIG") return path.c_str();
      return env(name);
    }, {});
  }
  return load_program_settings(with_file, file);
}

EnvLookup env_of(std::map<std::string, std::string> vars = {}) {
  auto shared = std::make_shared<const std::map<std::string, std::string>>(std::move(vars));
  return [shared](const char* name) -> const char* {
    auto it = shared->find(name);
    return it == shared->end() ? nullptr : it->second.c_str();
  };
}

fs::path write_file(const fs::path& dir, const std::string& content,
                    const std::string& name = "authd.conf") {
  fs::path p = dir / name;
  std::ofstream out(p, std::ios::binary);
  out << content;
  return p;
}

bool names_line(const std::string& message, int line) {
  const std::string n = std::to_string(line);
  return message.find("line " + n) != std::string::npos ||
         message.find(":" + n + ":") != std::string::npos ||
         message.find(":" + n + " ") != std::string::npos ||
         message.find(":" + n + ")") != std::string::npos ||
         message.ends_with(":" + n);
}

TEST(ProgramSettings, Defaults) {
  auto config = load_config({}, env_of());
  ASSERT_TRUE(config.has_value()) << config.error().message;
  EXPECT_EQ(config->core.store.lmdb.directory, fs::path("./var"));
  EXPECT_EQ(signing_key_path(config->core), fs::path("./var") / "signing.key");
  EXPECT_TRUE(config->core.key.hex.empty());
  EXPECT_EQ(config->core.store.map_size_mb, 65536u);
  EXPECT_TRUE(config->core.store.lmdb.sync);
  EXPECT_EQ(config->server.workers, 0u);
  EXPECT_EQ(config->server.limits.max_body_bytes, 65536u);
  EXPECT_EQ(config->server.max_json_depth, 16u);
  EXPECT_EQ(config->core.token.ttl, 3600s);
  EXPECT_EQ(config->core.token.leeway, 0s);
  EXPECT_EQ(config->core.token.issuer, "authd");
  EXPECT_EQ(config->core.token.audience, "authd");
  EXPECT_EQ(config->server.cookie_secure, CookieSecure::automatic);
  EXPECT_EQ(config->core.argon2.iterations, 2u);
  EXPECT_EQ(config->core.argon2.memory_kib, 19456u);
  EXPECT_EQ(config->core.argon2.parallelism, 1u);
  EXPECT_EQ(config->core.credentials.username_max_length, 64u);
  EXPECT_EQ(config->core.credentials.password_max_length, 1024u);
  EXPECT_EQ(config->server.log_level, "info");
}

TEST(ProgramSettings, KeyFileDefaultsIntoStateDir) {
  CoreSettings c;
  c.store.lmdb.directory = "/srv/authd";
  EXPECT_EQ(signing_key_path(c), fs::path("/srv/authd/signing.key"));
  c.key.file = "/etc/authd/key";
  EXPECT_EQ(signing_key_path(c), fs::path("/etc/authd/key"));
}

TEST(ProgramSettings, ParsesAFileWithCommentsBlankLinesAndSpaces) {
  test::TempDir tmp;
  const fs::path file = write_file(tmp.path(),
                                   "# authd configuration\n"
                                   "\n"
                                   "state_dir=/var/lib/authd\n"
                                   "   # indented comment\n"
                                   "token_ttl = 600\n"
                                   "  token_leeway   =   5  \n"
                                   "\t\n"
                                   "token_issuer = issuer.example\n"
                                   "map_size_mb = 64\n"
                                   "sync_writes = false\n"
                                   "argon2_iterations = 3\n"
                                   "argon2_memory_kib = 65536\n"
                                   "username_max_length = 32\n"
                                   "cookie_secure = always\n"
                                   "log_level = debug\n");
  auto config = load_config(file, env_of());
  ASSERT_TRUE(config.has_value()) << config.error().message;
  EXPECT_EQ(config->core.store.lmdb.directory, fs::path("/var/lib/authd"));
  EXPECT_EQ(signing_key_path(config->core), fs::path("/var/lib/authd/signing.key"));
  EXPECT_EQ(config->core.token.ttl, 600s);
  EXPECT_EQ(config->core.token.leeway, 5s);
  EXPECT_EQ(config->core.token.issuer, "issuer.example");
  EXPECT_EQ(config->core.store.map_size_mb, 64u);
  EXPECT_FALSE(config->core.store.lmdb.sync);
  EXPECT_EQ(config->core.argon2.iterations, 3u);
  EXPECT_EQ(config->core.argon2.memory_kib, 65536u);
  EXPECT_EQ(config->core.credentials.username_max_length, 32u);
  EXPECT_EQ(config->server.cookie_secure, CookieSecure::always);
  EXPECT_EQ(config->server.log_level, "debug");
  // Untouched settings keep their defaults.
  EXPECT_EQ(config->core.token.audience, "authd");
  EXPECT_EQ(config->server.limits.max_body_bytes, 65536u);
}

TEST(ProgramSettings, FileWithoutTrailingNewline) {
  test::TempDir tmp;
  auto config = load_config(write_file(tmp.path(), "token_ttl = 42"), env_of());
  ASSERT_TRUE(config.has_value()) << config.error().message;
  EXPECT_EQ(config->core.token.ttl, 42s);
}

TEST(ProgramSettings, UnknownSettingInFileIsAnErrorNamingItAndTheLine) {
  test::TempDir tmp;
  const fs::path file = write_file(tmp.path(),
                                   "# comment\n"
                                   "token_ttl = 600\n"
                                   "\n"
                                   "state_dir = /tmp/x\n"
                                   "\n"
                                   "# another\n"
                                   "bogus_setting = 1\n");
  auto config = load_config(file, env_of());
  ASSERT_FALSE(config.has_value());
  EXPECT_EQ(config.error().code, Errc::config);
  const std::string& msg = config.error().message;
  EXPECT_NE(msg.find("bogus_setting"), std::string::npos) << msg;
  EXPECT_TRUE(names_line(msg, 7)) << msg;
  EXPECT_NE(msg.find(file.filename().string()), std::string::npos) << msg;
}

TEST(ProgramSettings, BadNumberIsAnError) {
  test::TempDir tmp;
  for (const char* value : {"abc", "12abc", "", "1.5", "99999999999999999999999"}) {
    auto config =
        load_config(write_file(tmp.path(), std::string("token_ttl = ") + value + "\n"), env_of());
    ASSERT_FALSE(config.has_value()) << '"' << value << '"';
    EXPECT_EQ(config.error().code, Errc::config);
    EXPECT_NE(config.error().message.find("token_ttl"), std::string::npos)
        << config.error().message;
    EXPECT_TRUE(names_line(config.error().message, 1)) << config.error().message;
  }
}

// Issue 41 class 16: a malformed address-list entry is refused with the
// settings file and line, never read as a range (trusted_proxies = /24 read
// front() of an empty host).
TEST(ProgramSettings, MalformedAddressListEntryNamesTheFileAndLine) {
  test::TempDir tmp;
  for (const char* setting : {"trusted_proxies", "metrics_allow"}) {
    for (const char* value : {"/24", "1.2.3.4/", "/", "::/", "10.0.0.0/33", "::1/129", "127.0.0.1/8, /8"}) {
      const fs::path file = write_file(tmp.path(), std::string("# a comment\n") + setting + " = " + value + "\n");
      auto config = load_config(file, env_of());
      ASSERT_FALSE(config.has_value()) << setting << " = " << value;
      EXPECT_EQ(config.error().code, Errc::config);
      const std::string& msg = config.error().message;
      EXPECT_NE(msg.find(file.string()), std::string::npos) << msg;
      EXPECT_TRUE(names_line(msg, 2)) << msg;
      EXPECT_NE(msg.find(setting), std::string::npos) << msg;
    }
  }
}

TEST(ProgramSettings, LineWithoutEqualsIsAnError) {
  test::TempDir tmp;
  auto config = load_config(write_file(tmp.path(), "token_ttl = 5\ntoken_ttl\n"), env_of());
  ASSERT_FALSE(config.has_value());
  EXPECT_EQ(config.error().code, Errc::config);
  EXPECT_TRUE(names_line(config.error().message, 2)) << config.error().message;
}

TEST(ProgramSettings, BadEnumValuesAreErrors) {
  test::TempDir tmp;
  for (const char* line : {"sync_writes = maybe\n", "cookie_secure = sometimes\n",
                           "log_level = loud\n"}) {
    auto config = load_config(write_file(tmp.path(), line), env_of());
    ASSERT_FALSE(config.has_value()) << line;
    EXPECT_EQ(config.error().code, Errc::config) << line;
  }
}

TEST(ProgramSettings, EnvironmentOverridesTheFile) {
  test::TempDir tmp;
  const fs::path file = write_file(tmp.path(), "token_ttl = 600\nstate_dir = /from/file\n");
  auto config = load_config(file, env_of({{"AUTHD_TOKEN_TTL", "120"}}));
  ASSERT_TRUE(config.has_value()) << config.error().message;
  EXPECT_EQ(config->core.token.ttl, 120s);
  EXPECT_EQ(config->core.store.lmdb.directory, fs::path("/from/file"));
}

TEST(ProgramSettings, EnvironmentStateDir) {
  auto config = load_config({}, env_of({{"AUTHD_STATE_DIR", "/tmp/authd-state"}}));
  ASSERT_TRUE(config.has_value()) << config.error().message;
  EXPECT_EQ(config->core.store.lmdb.directory, fs::path("/tmp/authd-state"));
  EXPECT_EQ(signing_key_path(config->core), fs::path("/tmp/authd-state/signing.key"));

  test::TempDir tmp;
  const fs::path file = write_file(tmp.path(), "state_dir = /from/file\n");
  auto overridden = load_config(file, env_of({{"AUTHD_STATE_DIR", "/from/env"}}));
  ASSERT_TRUE(overridden.has_value()) << overridden.error().message;
  EXPECT_EQ(overridden->core.store.lmdb.directory, fs::path("/from/env"));
}

TEST(ProgramSettings, EnvironmentWithoutFile) {
  auto config = load_config({}, env_of({{"AUTHD_TOKEN_TTL", "77"},
                                        {"AUTHD_TOKEN_ISSUER", "env-issuer"},
                                        {"AUTHD_ARGON2_MEMORY_KIB", "4096"}}));
  ASSERT_TRUE(config.has_value()) << config.error().message;
  EXPECT_EQ(config->core.token.ttl, 77s);
  EXPECT_EQ(config->core.token.issuer, "env-issuer");
  EXPECT_EQ(config->core.argon2.memory_kib, 4096u);
}

TEST(ProgramSettings, BadEnvironmentValueIsAnErrorNamingTheVariable) {
  auto config = load_config({}, env_of({{"AUTHD_TOKEN_TTL", "soon"}}));
  ASSERT_FALSE(config.has_value());
  EXPECT_EQ(config.error().code, Errc::config);
  EXPECT_NE(config.error().message.find("TOKEN_TTL"), std::string::npos) << config.error().message;
}

TEST(ProgramSettings, OnlyAuthdPrefixedUpperCaseVariablesCount) {
  auto config = load_config({}, env_of({{"TOKEN_TTL", "5"}, {"authd_token_ttl", "6"},
                                        {"AUTHD_token_ttl", "7"}}));
  ASSERT_TRUE(config.has_value()) << config.error().message;
  EXPECT_EQ(config->core.token.ttl, 3600s);
}

// authd and authctl pass the environment's AUTHD_* names: each must be a
// setting's AUTHD_<NAME> exactly (or AUTHD_CONFIG, AUTHD_BIN), as each name in
// the file must be a setting.
Result<ProgramSettings> load_with_names(std::map<std::string, std::string> vars) {
  std::vector<std::string> names;
  for (const auto& [name, value] : vars) names.push_back(name);
  return load_program_settings(env_of(std::move(vars)), {}, names);
}

TEST(ProgramSettings, UnknownAuthdVariableIsAnErrorNamingItAndTheNearestSetting) {
  auto config = load_with_names({{"AUTHD_AUTHORIZE_RULES", "/ * method"}});
  ASSERT_FALSE(config.has_value());
  EXPECT_EQ(config.error().code, Errc::config);
  EXPECT_NE(config.error().message.find("environment AUTHD_AUTHORIZE_RULES: unknown setting"), std::string::npos)
      << config.error().message;
  EXPECT_NE(config.error().message.find("did you mean AUTHD_AUTHORIZE_RULE?"), std::string::npos)
      << config.error().message;
  for (const char* unknown : {"AUTHD_token_ttl", "AUTHD_FRONTEND", "AUTHD_OAUTH_GITHUB_CLIENT_ID", "AUTHD_"}) {
    auto refused = load_with_names({{unknown, "1"}});
    ASSERT_FALSE(refused.has_value()) << unknown;
    EXPECT_NE(refused.error().message.find(std::string("environment ") + unknown + ":"), std::string::npos)
        << refused.error().message;
  }
}

TEST(ProgramSettings, EverySettingVariableAndTheNonSettingOnesAreAccepted) {
  auto config = load_with_names({{"AUTHD_AUTHORIZE_RULE", "/a/ * public; /b/ * delete"},
                                 {"AUTHD_TOKEN_TTL", "60"},
                                 {"AUTHD_BIN", "/usr/sbin/authd"},
                                 {"AUTHD_OAUTH_PROVIDERS", "gh"},
                                 {"AUTHD_OAUTH_GH_CLIENT_ID", "c"},
                                 {"AUTHD_OAUTH_GH_REDIRECT_URI", "https://a.example/oauth"},
                                 {"AUTHD_OAUTH_GH_ISSUER", "https://idp.example"}});
  ASSERT_TRUE(config.has_value()) << config.error().message;
  EXPECT_EQ(config->core.token.ttl, 60s);
  EXPECT_EQ(config->core.access_rules.rules().size(), 2u);
}

TEST(ProgramSettings, SettingNames) {
  const auto names = program_setting_names();
  auto has = [&](std::string_view n) {
    return std::find(names.begin(), names.end(), n) != names.end();
  };
  for (std::string_view n : {"state_dir", "token_ttl", "token_leeway", "token_issuer",
                             "token_audience", "map_size_mb", "argon2_iterations",
                             "argon2_memory_kib", "argon2_parallelism", "username_max_length",
                             "log_level"}) {
    EXPECT_TRUE(has(n)) << n;
  }
  // No duplicates, all lower-case names.
  std::vector<std::string> sorted = names;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end());
  for (const std::string& n : names) {
    EXPECT_EQ(n.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_"), std::string::npos)
        << n;
  }
}

TEST(ProgramSettings, EverySettingNameIsAcceptedInTheFile) {
  // Each name must at least be recognised: any error must not be "unknown".
  test::TempDir tmp;
  for (const std::string& name : program_setting_names()) {
    auto config = load_config(write_file(tmp.path(), name + " = 1\n"), env_of());
    if (!config) {
      EXPECT_EQ(config.error().message.find("unknown"), std::string::npos)
          << name << ": " << config.error().message;
    }
  }
}

TEST(ProgramSettings, MissingExplicitFileIsAnError) {
  test::TempDir tmp;
  const fs::path file = tmp.path() / "does-not-exist.conf";
  auto config = load_config(file, env_of());
  ASSERT_FALSE(config.has_value());
  EXPECT_EQ(config.error().code, Errc::config);
  EXPECT_NE(config.error().message.find("does-not-exist.conf"), std::string::npos)
      << config.error().message;
}

TEST(ProgramSettings, DirectoryAsConfigFileIsAnError) {
  test::TempDir tmp;
  auto config = load_config(tmp.path(), env_of());
  ASSERT_FALSE(config.has_value()) << "a directory was accepted as the config file";
  EXPECT_EQ(config.error().code, Errc::config);
  auto optional = load_config(tmp.path(), env_of(), /*optional_file=*/true);
  ASSERT_FALSE(optional.has_value()) << "an existing but unreadable optional file was ignored";
  EXPECT_EQ(optional.error().code, Errc::config);
}

TEST(ProgramSettings, InconsistentSettingsAreErrors) {
  test::TempDir tmp;
  for (const char* text : {"argon2_parallelism = 4\nargon2_memory_kib = 16\n",
                           "password_min_length = 100\npassword_max_length = 50\n",
                           "token_issuer = \n", "state_dir = \n"}) {
    auto config = load_config(write_file(tmp.path(), text), env_of());
    ASSERT_FALSE(config.has_value()) << text;
    EXPECT_EQ(config.error().code, Errc::config) << text;
  }
}

TEST(ProgramSettings, OutOfRangeValuesAreErrors) {
  test::TempDir tmp;
  for (const char* text : {"token_ttl = 0\n", "token_ttl = -5\n", "argon2_iterations = 0\n",
                           "argon2_parallelism = 0\n"}) {
    auto config = load_config(write_file(tmp.path(), text), env_of());
    ASSERT_FALSE(config.has_value()) << text;
    EXPECT_EQ(config.error().code, Errc::config) << text;
  }
}

TEST(ProgramSettings, MissingOptionalFileGivesDefaults) {
  test::TempDir tmp;
  auto config = load_config(tmp.path() / "does-not-exist.conf",
                            env_of({{"AUTHD_TOKEN_TTL", "99"}}), /*optional_file=*/true);
  ASSERT_TRUE(config.has_value()) << config.error().message;
  EXPECT_EQ(config->core.token.ttl, 99s);
  EXPECT_EQ(config->core.store.lmdb.directory, fs::path("./var"));
}

TEST(ProgramSettings, OptionalFileThatExistsIsStillParsed) {
  test::TempDir tmp;
  auto config =
      load_config(write_file(tmp.path(), "token_ttl = 11\n"), env_of(), /*optional_file=*/true);
  ASSERT_TRUE(config.has_value()) << config.error().message;
  EXPECT_EQ(config->core.token.ttl, 11s);
  auto bad = load_config(write_file(tmp.path(), "nonsense = 1\n"), env_of(), true);
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().code, Errc::config);
}

TEST(ProgramSettings, ConfigSource) {
  auto from_env = settings::config_source(env_of({{"AUTHD_CONFIG", "/etc/authd/custom.conf"}}),
                                "/usr/local/etc/authd.conf");
  EXPECT_EQ(from_env.file, fs::path("/etc/authd/custom.conf"));
  EXPECT_FALSE(from_env.optional);

  auto fallback = settings::config_source(env_of(), "/usr/local/etc/authd.conf");
  EXPECT_EQ(fallback.file, fs::path("/usr/local/etc/authd.conf"));
  EXPECT_TRUE(fallback.optional);
}

}  // namespace
}  // namespace authd

namespace authd {
namespace {

TEST(SettingsFile, QuotedValuesKeepHashAndSpaces) {
  test::TempDir tmp;
  auto config = load_config(write_file(tmp.path(),
                                       "token_issuer = \"https://id.example.com/#main realm\"   # a comment\n"
                                       "token_audience = \"say \\\"hi\\\" \\\\ there\"\n"
                                       "log_level = debug # trailing comment\n"),
                            env_of());
  ASSERT_TRUE(config.has_value()) << config.error().message;
  EXPECT_EQ(config->core.token.issuer, "https://id.example.com/#main realm");
  EXPECT_EQ(config->core.token.audience, "say \"hi\" \\ there");
  EXPECT_EQ(config->server.log_level, "debug");
}

TEST(SettingsFile, UnterminatedQuoteOrTextAfterItIsAnErrorNamingTheLine) {
  test::TempDir tmp;
  for (const char* text : {"token_issuer = \"open\n", "token_issuer = \"a\" b\n"}) {
    auto config = load_config(write_file(tmp.path(), std::string("# x\n") + text), env_of());
    ASSERT_FALSE(config.has_value()) << text;
    EXPECT_EQ(config.error().code, Errc::config);
    EXPECT_TRUE(names_line(config.error().message, 2)) << config.error().message;
  }
}

TEST(SettingsFile, EveryFixedSettingIsInConfCommentedOutWithItsDefault) {
  // conf/authd.conf (generated from the tables: scripts/settings-docs.sh)
  // lists each setting commented out as `#name = default`, and sets none:
  // the file as shipped means the built-in defaults.
  std::ifstream in(std::string(AUTHD_SOURCE_DIR) + "/conf/authd.conf");
  ASSERT_TRUE(in) << "conf/authd.conf";
  std::map<std::string, std::string> listed;
  std::set<std::string> live;
  std::string text;
  while (std::getline(in, text)) {
    std::string_view view = text;
    const bool is_setting_comment = view.size() > 1 && view[0] == '#' && std::islower(static_cast<unsigned char>(view[1]));
    if (is_setting_comment) view.remove_prefix(1);
    auto line = settings::parse_line(view);
    if (!line || !*line) continue;
    if (is_setting_comment) listed[(*line)->name] = (*line)->value;
    else live.insert((*line)->name);
  }
  for (const auto& [name, value] : program_setting_defaults()) {
    ASSERT_TRUE(listed.contains(name)) << "#" << name << " = " << value << " is not in conf/authd.conf";
    EXPECT_EQ(listed[name], value) << name << ": conf/authd.conf says " << listed[name] << ", the default is " << value;
  }
  EXPECT_TRUE(live.empty()) << *live.begin() << " is set in conf/authd.conf";
  // And nothing in the file is unknown.
  const auto names = program_setting_names();
  for (const auto& [name, value] : listed) {
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
  }
}

TEST(SettingsFile, EverySettingHasAGroupAndADescription) {
  // A new row must say what it does: the reference (conf/authd.conf,
  // docs/configuration.md, authd.conf(5)) is written from the tables.
  const auto conf = program_settings_reference(settings::ReferenceFormat::conf);
  EXPECT_EQ(conf.find("--- Other settings"), std::string::npos) << "a setting has no group";
  std::istringstream lines(conf);
  std::string previous, before_previous;
  for (std::string text; std::getline(lines, text); before_previous = previous, previous = text) {
    if (text.size() < 2 || text[0] != '#' || !std::islower(static_cast<unsigned char>(text[1]))) continue;
    // "# doc ...", then "# (type; AUTHD_NAME)", then "#name = default".
    EXPECT_TRUE(previous.starts_with("# (")) << text;
    EXPECT_TRUE(before_previous.starts_with("# ") && before_previous.size() > 2) << text << " has no description";
  }
}

TEST(SettingsPrint, ShowsEveryEffectiveValueAndRedactsSecrets) {
  auto config = load_config({}, env_of({{"AUTHD_SIGNING_KEY", std::string(64, 'a')},
                                        {"AUTHD_TOKEN_TTL", "99"},
                                        {"AUTHD_OAUTH_CLIENT_ID", "client"},
                                        {"AUTHD_OAUTH_CLIENT_SECRET", "hush-hush"},
                                        {"AUTHD_OAUTH_ISSUER", "https://id.example.com"},
                                        {"AUTHD_OAUTH_REDIRECT_URI", "https://app.example.com/oauth"}}));
  ASSERT_TRUE(config.has_value()) << config.error().message;
  const std::string& printed = config->effective;
  EXPECT_NE(printed.find("token_ttl = 99\n"), std::string::npos) << printed;
  EXPECT_NE(printed.find("signing_key = (set)\n"), std::string::npos) << printed;
  EXPECT_EQ(printed.find(std::string(64, 'a')), std::string::npos) << printed;
  EXPECT_NE(printed.find("oauth.default.client_id = client\n"), std::string::npos) << printed;
  EXPECT_EQ(printed.find("hush-hush"), std::string::npos) << printed;
  for (const auto& name : program_setting_names()) {
    if (name.starts_with("oauth_") && name != "oauth_keep_role" && !name.ends_with("_ms") && name != "oauth_state_ttl") {
      continue;  // provider settings print per provider
    }
    EXPECT_NE(printed.find(name + " = "), std::string::npos) << name;
  }
}

}  // namespace
}  // namespace authd
