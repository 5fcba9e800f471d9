// The settings reference (conf, Markdown, roff) written from a table: what
// conf/authd.conf, docs/configuration.md and authd.conf(5) are made of.
#include "authd/settings_reference.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <sstream>
#include <string>

namespace authd::settings {
namespace {

struct Sample {
  std::chrono::seconds ttl{3600};
  std::string issuer = "authd";
  std::string motto = "a # b";
  std::string key;
  bool on = true;
};

Loader sample_loader(Sample& s) {
  Loader loader;
  loader.add(grouped("Tokens", {seconds("token_ttl", s.ttl, 1, 86400, "Lifetime of a token, in seconds."),
                                text("token_issuer", s.issuer, "The `iss` claim, see <state_dir>/x."),
                                secret("signing_key", s.key, "The key.")}));
  auto motto = text("motto", s.motto, ".A doc that starts with a dot and has a \\ backslash, *stars* too.");
  motto.group = "Other";
  loader.add({std::move(motto), boolean("switch", s.on, "A switch.")});
  return loader;
}

TEST(SettingsReference, FormatNames) {
  EXPECT_EQ(reference_format("conf"), ReferenceFormat::conf);
  EXPECT_EQ(reference_format("markdown"), ReferenceFormat::markdown);
  EXPECT_EQ(reference_format("man"), ReferenceFormat::man);
  EXPECT_FALSE(reference_format("html").has_value());
}

TEST(SettingsReference, ConfListsEverySettingCommentedOutWithItsDefaultAndDoc) {
  Sample s;
  const auto loader = sample_loader(s);
  const auto conf = render_reference(loader.documented(), ReferenceFormat::conf);
  EXPECT_NE(conf.find("# --- Tokens ---"), std::string::npos) << conf;
  EXPECT_NE(conf.find("# Lifetime of a token, in seconds.\n# (seconds, 1 to 86400; AUTHD_TOKEN_TTL)\n#token_ttl = 3600\n"),
            std::string::npos)
      << conf;
  EXPECT_NE(conf.find("#signing_key =\n"), std::string::npos) << conf;
  // A value the parser would cut at '#' is quoted, and reads back as the default.
  const auto at = conf.find("#motto = ");
  ASSERT_NE(at, std::string::npos) << conf;
  auto line = parse_line(std::string_view(conf).substr(at + 1, conf.find('\n', at) - at - 1));
  ASSERT_TRUE(line && *line);
  EXPECT_EQ((*line)->value, "a # b");
  // A row without a group is listed under "Other settings" ("switch").
  EXPECT_NE(conf.find("# --- Other settings ---"), std::string::npos) << conf;
  // No line is live: the file as written means the defaults.
  std::istringstream lines(conf);
  for (std::string text; std::getline(lines, text);) {
    EXPECT_TRUE(text.empty() || text.front() == '#') << text;
    EXPECT_LE(text.size(), 79u) << text;
  }
}

TEST(SettingsReference, MarkdownEscapesOutsideCodeSpans) {
  Sample s;
  const auto loader = sample_loader(s);
  const auto md = render_reference(loader.documented(), ReferenceFormat::markdown);
  EXPECT_NE(md.find("## Tokens\n\n### `token_ttl`\n\nseconds, 1 to 86400 · default `3600` · `AUTHD_TOKEN_TTL`\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("The `iss` claim, see &lt;state_dir>/x."), std::string::npos) << md;
  EXPECT_NE(md.find("\\*stars\\*"), std::string::npos) << md;
  EXPECT_NE(md.find("default empty"), std::string::npos) << md;
}

TEST(SettingsReference, RoffEscapesControlCharactersAndBackslashes) {
  Sample s;
  const auto loader = sample_loader(s);
  const auto man = render_reference(loader.documented(), ReferenceFormat::man);
  EXPECT_EQ(man.rfind(".SH SETTINGS\n.SS Tokens\n.TP\n.B token_ttl\n", 0), 0u) << man;
  EXPECT_NE(man.find("The \\fBiss\\fR claim"), std::string::npos) << man;
  EXPECT_NE(man.find("\n\\&.A doc that starts with a dot and has a \\e backslash"), std::string::npos) << man;
}

}  // namespace
}  // namespace authd::settings
