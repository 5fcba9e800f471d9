// Typed settings, declared where they are used.
//
// Each module declares its settings as a table of rows — name, type,
// default, bounds or allowed values, a group and one paragraph of doc — bound
// to the fields of its own options struct (lighttpd's config_plugin_keys_t is
// the model):
//
//   std::vector<settings::Setting> token_settings(TokenPolicy& p) {
//     return settings::grouped("Tokens", {
//         settings::seconds("token_ttl", p.ttl, 1, 366 * 86400, "Access token lifetime.")});
//   }
//
// The tables are the one source of the settings reference: conf/authd.conf,
// docs/configuration.md and authd.conf(5) are generated from them
// (settings_reference.hpp, `authd --print-config=conf|markdown|man`).
//
// One generic Loader fills every table from the config file (`name = value`
// lines, `#` comments, values optionally in double quotes that keep `#` and
// spaces) and then from AUTHD_<NAME> environment variables. It validates once,
// at start: an unknown name, a bad value or one out of bounds stops the start
// with file, line and reason; so does an AUTHD_* variable that names no setting
// (refuse_unknown_variables; the programs pass the environment's names).
// Requests never parse settings.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "authd/error.hpp"

namespace authd {

// Looks up an environment variable; returns nullptr when unset.
using EnvLookup = std::function<const char*(const char*)>;

namespace settings {

enum class Kind { integer, seconds, milliseconds, boolean, text, secret, path, choice, list };

struct Setting {
  std::string name;                   // as written in the file; variable AUTHD_<NAME>
  Kind kind = Kind::text;
  std::string doc;                    // one paragraph: what it does, its units, what 0/empty means
  std::string group;                  // the section of the reference it is listed in
  long long min = 0, max = 0;         // integer, seconds, milliseconds
  std::vector<std::string> choices;   // choice
  // Parses and stores a value (a list appends). Error: config, with the reason only.
  std::function<Result<void>(std::string_view)> assign;
  // The current value as it would be written in the file ("" for none).
  std::function<std::string()> show;
};

// The variable that overrides a setting: AUTHD_<NAME>, the name in upper case.
std::string variable_for(const Setting& setting);
std::string variable_for(std::string_view name);

// The AUTHD_* variables that are not settings and that the loader accepts:
// AUTHD_CONFIG names the config file; AUTHD_BIN names the authd program for the
// scripts that start it (scripts/serve.sh, scripts/supervise-authd.sh, the tests'
// harness), which pass their environment on to it.
inline constexpr std::string_view kNonSettingVariables[] = {"AUTHD_CONFIG", "AUTHD_BIN"};

// The names of this process's environment variables that start with AUTHD_.
std::vector<std::string> environment_variable_names();

// `rows` with `group` set on each row that has none yet.
std::vector<Setting> grouped(std::string_view group, std::vector<Setting> rows);

// The items of a value that lists several ("a b", "a,b", "a, b"): separated
// by white space or commas, empty items skipped. Every setting documented as
// "separated by spaces or commas" reads its value with this.
std::vector<std::string_view> list_items(std::string_view value);

// --- row builders: each binds a row to a field of the module's struct ------
template <class Int>
Setting integer(std::string name, Int& field, long long min, long long max, std::string doc);
Setting seconds(std::string name, std::chrono::seconds& field, long long min, long long max, std::string doc);
Setting milliseconds(std::string name, std::chrono::milliseconds& field, long long min, long long max,
                     std::string doc);
Setting boolean(std::string name, bool& field, std::string doc);
Setting text(std::string name, std::string& field, std::string doc);
// Like text, but printed as "(set)" by --print-config.
Setting secret(std::string name, std::string& field, std::string doc);
Setting path(std::string name, std::filesystem::path& field, std::string doc);
template <class Enum>
Setting choice(std::string name, Enum& field, std::initializer_list<std::pair<std::string_view, Enum>> values,
               std::string doc);

// Settings whose names are not fixed (oauth.<provider>.<key>): a module that
// has such settings implements this and adds it to the loader.
class DynamicSettings {
 public:
  virtual ~DynamicSettings() = default;
  // Takes `name` if it is one of its settings; false when it is not.
  virtual Result<bool> assign(std::string_view name, std::string_view value) = 0;
  // Reads its AUTHD_* variables.
  virtual Result<void> assign_environment(const EnvLookup& env) = 0;
  // The AUTHD_* variables it reads (after assign_environment: names that depend
  // on what was read, such as a listed provider's, included).
  virtual std::vector<std::string> variables() const = 0;
  // Called once after the file and the environment: validates, completes.
  virtual Result<void> finish() = 0;
  // The names it knows, for documentation checks (patterns such as "oauth.<name>.issuer").
  virtual std::vector<std::string> names() const = 0;
  // Effective `name = value` lines, secrets redacted.
  virtual std::vector<std::string> describe() const = 0;
  // Rows for the settings reference only (never assigned through): name,
  // kind, group, doc, and `show` giving the default.
  virtual std::vector<Setting> reference() const { return {}; }
};

// A row of the settings reference with its declared default.
struct Documented {
  Setting row;
  std::string default_value;
};

class Loader {
 public:
  void add(std::vector<Setting> table);
  void add(DynamicSettings& dynamic);
  // A check over several settings, run after everything is read. Error: config.
  void add_check(std::function<Result<void>()> check);
  // Unknown names in the file are skipped instead of refused: for a program
  // that reads another's configuration (the library's from_environment).
  void skip_unknown_names() noexcept { skip_unknown_ = true; }
  // `present`: the AUTHD_* variables of the environment (environment_variable_names()).
  // load() then refuses any of them that is neither a setting's variable nor one
  // of kNonSettingVariables, naming it and the nearest known variable, as it
  // refuses an unknown name in the file.
  void refuse_unknown_variables(std::vector<std::string> present) { present_ = std::move(present); }

  // `file` may be empty (defaults + environment). A missing file is an error
  // unless `optional_file`. Errors: config, naming file and line (or the
  // variable) and the setting.
  Result<void> load(const std::filesystem::path& file, bool optional_file, const EnvLookup& env);

  // Every setting's effective value, one `name = value` per line, secrets redacted.
  std::string print() const;
  // The defaults as declared (captured when each table was added).
  const std::vector<std::pair<std::string, std::string>>& defaults() const noexcept { return defaults_; }
  std::vector<std::string> names() const;
  const std::vector<Setting>& rows() const noexcept { return rows_; }
  // Every documented row, fixed and dynamic, in the order the tables were added.
  const std::vector<Documented>& documented() const noexcept { return documented_; }

 private:
  Result<void> assign(std::string_view name, std::string_view value, const std::string& where);
  Result<void> check_variables() const;
  std::vector<Setting> rows_;
  std::vector<std::pair<std::string, std::string>> defaults_;
  std::vector<Documented> documented_;
  std::vector<DynamicSettings*> dynamic_;
  std::vector<std::function<Result<void>()>> checks_;
  bool skip_unknown_ = false;
  std::optional<std::vector<std::string>> present_;
};

// The config file to use: $AUTHD_CONFIG if set (must exist), else the
// compiled-in default (optional).
struct ConfigSource {
  std::filesystem::path file;
  bool optional = true;
};
ConfigSource config_source(const EnvLookup& env, const std::filesystem::path& compiled_default);

// One line of a config file: "" for blank/comment-only lines, else the name
// and the value (unquoted). Error: config, with the reason.
struct Line {
  std::string name;
  std::string value;
};
Result<std::optional<Line>> parse_line(std::string_view text);

// --- implementation of the templates --------------------------------------
namespace detail {
Result<long long> parse_integer(std::string_view text, long long min, long long max);

// A whole number within [min, max] stored into an integer or a duration.
template <class Number>
Setting bounded(std::string name, Kind kind, Number& field, long long min, long long max, std::string doc) {
  constexpr bool is_duration = requires { field.count(); };
  Setting s;
  s.name = std::move(name);
  s.kind = kind;
  s.doc = std::move(doc);
  s.min = min;
  s.max = max;
  s.assign = [&field, min, max](std::string_view v) -> Result<void> {
    auto n = parse_integer(v, min, max);
    if (!n) return std::unexpected(n.error());
    if constexpr (is_duration) field = Number{*n};
    else field = static_cast<Number>(*n);
    return {};
  };
  s.show = [&field] {
    if constexpr (is_duration) return std::to_string(field.count());
    else return std::to_string(field);
  };
  return s;
}
}  // namespace detail

template <class Int>
Setting integer(std::string name, Int& field, long long min, long long max, std::string doc) {
  return detail::bounded(std::move(name), Kind::integer, field, min, max, std::move(doc));
}

template <class Enum>
Setting choice(std::string name, Enum& field, std::initializer_list<std::pair<std::string_view, Enum>> values,
               std::string doc) {
  Setting s;
  s.name = std::move(name);
  s.kind = Kind::choice;
  s.doc = std::move(doc);
  std::vector<std::pair<std::string, Enum>> table;
  for (const auto& [text, value] : values) {
    s.choices.emplace_back(text);
    table.emplace_back(std::string(text), value);
  }
  s.assign = [&field, table, choices = s.choices](std::string_view v) -> Result<void> {
    for (const auto& [text, value] : table) {
      if (text == v) {
        field = value;
        return {};
      }
    }
    std::string expected;
    for (std::size_t i = 0; i < choices.size(); ++i) {
      expected += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + choices[i];
    }
    return fail(Errc::config, "expected " + expected);
  };
  s.show = [&field, table] {
    for (const auto& [text, value] : table) {
      if (value == field) return text;
    }
    return std::string();
  };
  return s;
}

}  // namespace settings
}  // namespace authd
