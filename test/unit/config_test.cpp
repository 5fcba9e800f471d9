#include "authd/config.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <memory>
#include <string>

#include "test_support.hpp"

namespace authd {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

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

TEST(Config, Defaults) {
  auto config = load_config({}, env_of());
  ASSERT_TRUE(config.has_value()) << config.error().message;
  EXPECT_EQ(config->state_dir, fs::path("./var"));
  EXPECT_EQ(config->key_file(), fs::path("./var") / "signing.key");
  EXPECT_TRUE(config->signing_key_hex.empty());
  EXPECT_EQ(config->map_size_mb, 1024u);
  EXPECT_TRUE(config->sync_writes);
  EXPECT_EQ(config->workers, 0u);
  EXPECT_EQ(config->max_body_bytes, 65536u);
  EXPECT_EQ(config->max_json_depth, 16u);
  EXPECT_EQ(config->token.ttl, 3600s);
  EXPECT_EQ(config->token.leeway, 0s);
  EXPECT_EQ(config->token.issuer, "authd");
  EXPECT_EQ(config->token.audience, "authd");
  EXPECT_EQ(config->cookie_secure, CookieSecure::automatic);
  EXPECT_EQ(config->argon2.iterations, 2u);
  EXPECT_EQ(config->argon2.memory_kib, 19456u);
  EXPECT_EQ(config->argon2.parallelism, 1u);
  EXPECT_EQ(config->credentials.username_max_length, 64u);
  EXPECT_EQ(config->credentials.password_max_length, 1024u);
  EXPECT_EQ(config->log_level, "info");
}

TEST(Config, KeyFileDefaultsIntoStateDir) {
  Config c;
  c.state_dir = "/srv/authd";
  EXPECT_EQ(c.key_file(), fs::path("/srv/authd/signing.key"));
  c.signing_key_file = "/etc/authd/key";
  EXPECT_EQ(c.key_file(), fs::path("/etc/authd/key"));
}

TEST(Config, ParsesAFileWithCommentsBlankLinesAndSpaces) {
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
  EXPECT_EQ(config->state_dir, fs::path("/var/lib/authd"));
  EXPECT_EQ(config->key_file(), fs::path("/var/lib/authd/signing.key"));
  EXPECT_EQ(config->token.ttl, 600s);
  EXPECT_EQ(config->token.leeway, 5s);
  EXPECT_EQ(config->token.issuer, "issuer.example");
  EXPECT_EQ(config->map_size_mb, 64u);
  EXPECT_FALSE(config->sync_writes);
  EXPECT_EQ(config->argon2.iterations, 3u);
  EXPECT_EQ(config->argon2.memory_kib, 65536u);
  EXPECT_EQ(config->credentials.username_max_length, 32u);
  EXPECT_EQ(config->cookie_secure, CookieSecure::always);
  EXPECT_EQ(config->log_level, "debug");
  // Untouched settings keep their defaults.
  EXPECT_EQ(config->token.audience, "authd");
  EXPECT_EQ(config->max_body_bytes, 65536u);
}

TEST(Config, FileWithoutTrailingNewline) {
  test::TempDir tmp;
  auto config = load_config(write_file(tmp.path(), "token_ttl = 42"), env_of());
  ASSERT_TRUE(config.has_value()) << config.error().message;
  EXPECT_EQ(config->token.ttl, 42s);
}

TEST(Config, UnknownSettingInFileIsAnErrorNamingItAndTheLine) {
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

TEST(Config, BadNumberIsAnError) {
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

TEST(Config, LineWithoutEqualsIsAnError) {
  test::TempDir tmp;
  auto config = load_config(write_file(tmp.path(), "token_ttl = 5\ntoken_ttl\n"), env_of());
  ASSERT_FALSE(config.has_value());
  EXPECT_EQ(config.error().code, Errc::config);
  EXPECT_TRUE(names_line(config.error().message, 2)) << config.error().message;
}

TEST(Config, BadEnumValuesAreErrors) {
  test::TempDir tmp;
  for (const char* line : {"sync_writes = maybe\n", "cookie_secure = sometimes\n",
                           "log_level = loud\n"}) {
    auto config = load_config(write_file(tmp.path(), line), env_of());
    ASSERT_FALSE(config.has_value()) << line;
    EXPECT_EQ(config.error().code, Errc::config) << line;
  }
}

TEST(Config, EnvironmentOverridesTheFile) {
  test::TempDir tmp;
  const fs::path file = write_file(tmp.path(), "token_ttl = 600\nstate_dir = /from/file\n");
  auto config = load_config(file, env_of({{"AUTHD_TOKEN_TTL", "120"}}));
  ASSERT_TRUE(config.has_value()) << config.error().message;
  EXPECT_EQ(config->token.ttl, 120s);
  EXPECT_EQ(config->state_dir, fs::path("/from/file"));
}

TEST(Config, EnvironmentStateDir) {
  auto config = load_config({}, env_of({{"AUTHD_STATE_DIR", "/tmp/authd-state"}}));
  ASSERT_TRUE(config.has_value()) << config.error().message;
  EXPECT_EQ(config->state_dir, fs::path("/tmp/authd-state"));
  EXPECT_EQ(config->key_file(), fs::path("/tmp/authd-state/signing.key"));

  test::TempDir tmp;
  const fs::path file = write_file(tmp.path(), "state_dir = /from/file\n");
  auto overridden = load_config(file, env_of({{"AUTHD_STATE_DIR", "/from/env"}}));
  ASSERT_TRUE(overridden.has_value()) << overridden.error().message;
  EXPECT_EQ(overridden->state_dir, fs::path("/from/env"));
}

TEST(Config, EnvironmentWithoutFile) {
  auto config = load_config({}, env_of({{"AUTHD_TOKEN_TTL", "77"},
                                        {"AUTHD_TOKEN_ISSUER", "env-issuer"},
                                        {"AUTHD_ARGON2_MEMORY_KIB", "4096"}}));
  ASSERT_TRUE(config.has_value()) << config.error().message;
  EXPECT_EQ(config->token.ttl, 77s);
  EXPECT_EQ(config->token.issuer, "env-issuer");
  EXPECT_EQ(config->argon2.memory_kib, 4096u);
}

TEST(Config, BadEnvironmentValueIsAnErrorNamingTheVariable) {
  auto config = load_config({}, env_of({{"AUTHD_TOKEN_TTL", "soon"}}));
  ASSERT_FALSE(config.has_value());
  EXPECT_EQ(config.error().code, Errc::config);
  EXPECT_NE(config.error().message.find("TOKEN_TTL"), std::string::npos) << config.error().message;
}

TEST(Config, OnlyAuthdPrefixedUpperCaseVariablesCount) {
  auto config = load_config({}, env_of({{"TOKEN_TTL", "5"}, {"authd_token_ttl", "6"},
                                        {"AUTHD_token_ttl", "7"}}));
  ASSERT_TRUE(config.has_value()) << config.error().message;
  EXPECT_EQ(config->token.ttl, 3600s);
}

TEST(Config, SettingNames) {
  const auto names = config_setting_names();
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

TEST(Config, EverySettingNameIsAcceptedInTheFile) {
  // Each name must at least be recognised: any error must not be "unknown".
  test::TempDir tmp;
  for (const std::string& name : config_setting_names()) {
    auto config = load_config(write_file(tmp.path(), name + " = 1\n"), env_of());
    if (!config) {
      EXPECT_EQ(config.error().message.find("unknown"), std::string::npos)
          << name << ": " << config.error().message;
    }
  }
}

TEST(Config, MissingExplicitFileIsAnError) {
  test::TempDir tmp;
  const fs::path file = tmp.path() / "does-not-exist.conf";
  auto config = load_config(file, env_of());
  ASSERT_FALSE(config.has_value());
  EXPECT_EQ(config.error().code, Errc::config);
  EXPECT_NE(config.error().message.find("does-not-exist.conf"), std::string::npos)
      << config.error().message;
}

TEST(Config, DirectoryAsConfigFileIsAnError) {
  test::TempDir tmp;
  auto config = load_config(tmp.path(), env_of());
  ASSERT_FALSE(config.has_value()) << "a directory was accepted as the config file";
  EXPECT_EQ(config.error().code, Errc::config);
  auto optional = load_config(tmp.path(), env_of(), /*optional_file=*/true);
  ASSERT_FALSE(optional.has_value()) << "an existing but unreadable optional file was ignored";
  EXPECT_EQ(optional.error().code, Errc::config);
}

TEST(Config, InconsistentSettingsAreErrors) {
  test::TempDir tmp;
  for (const char* text : {"argon2_parallelism = 4\nargon2_memory_kib = 16\n",
                           "password_min_length = 100\npassword_max_length = 50\n",
                           "token_issuer = \n", "state_dir = \n"}) {
    auto config = load_config(write_file(tmp.path(), text), env_of());
    ASSERT_FALSE(config.has_value()) << text;
    EXPECT_EQ(config.error().code, Errc::config) << text;
  }
}

TEST(Config, OutOfRangeValuesAreErrors) {
  test::TempDir tmp;
  for (const char* text : {"token_ttl = 0\n", "token_ttl = -5\n", "argon2_iterations = 0\n",
                           "argon2_parallelism = 0\n"}) {
    auto config = load_config(write_file(tmp.path(), text), env_of());
    ASSERT_FALSE(config.has_value()) << text;
    EXPECT_EQ(config.error().code, Errc::config) << text;
  }
}

TEST(Config, MissingOptionalFileGivesDefaults) {
  test::TempDir tmp;
  auto config = load_config(tmp.path() / "does-not-exist.conf",
                            env_of({{"AUTHD_TOKEN_TTL", "99"}}), /*optional_file=*/true);
  ASSERT_TRUE(config.has_value()) << config.error().message;
  EXPECT_EQ(config->token.ttl, 99s);
  EXPECT_EQ(config->state_dir, fs::path("./var"));
}

TEST(Config, OptionalFileThatExistsIsStillParsed) {
  test::TempDir tmp;
  auto config =
      load_config(write_file(tmp.path(), "token_ttl = 11\n"), env_of(), /*optional_file=*/true);
  ASSERT_TRUE(config.has_value()) << config.error().message;
  EXPECT_EQ(config->token.ttl, 11s);
  auto bad = load_config(write_file(tmp.path(), "nonsense = 1\n"), env_of(), true);
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().code, Errc::config);
}

TEST(Config, ConfigSource) {
  auto from_env = config_source(env_of({{"AUTHD_CONFIG", "/etc/authd/custom.conf"}}),
                                "/usr/local/etc/authd.conf");
  EXPECT_EQ(from_env.file, fs::path("/etc/authd/custom.conf"));
  EXPECT_FALSE(from_env.optional);

  auto fallback = config_source(env_of(), "/usr/local/etc/authd.conf");
  EXPECT_EQ(fallback.file, fs::path("/usr/local/etc/authd.conf"));
  EXPECT_TRUE(fallback.optional);
}

}  // namespace
}  // namespace authd
