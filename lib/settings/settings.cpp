#include "authd/settings.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <fstream>

#include <unistd.h>

#include "authd/text.hpp"

namespace authd::settings {
namespace detail {

Result<long long> parse_integer(std::string_view text, long long min, long long max) {
  long long value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < min || value > max) {
    return fail(Errc::config, "expected a whole number from " + std::to_string(min) + " to " + std::to_string(max));
  }
  return value;
}

}  // namespace detail

namespace {

// Levenshtein distance, for "did you mean" (names are short).
std::size_t distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

Result<bool> parse_bool(std::string_view text) {
  if (text == "true" || text == "yes" || text == "on" || text == "1") return true;
  if (text == "false" || text == "no" || text == "off" || text == "0") return false;
  return fail(Errc::config, "expected true or false");
}

}  // namespace

std::string variable_for(std::string_view name) {
  std::string variable = "AUTHD_" + std::string(name);
  std::transform(variable.begin(), variable.end(), variable.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return variable;
}

std::string variable_for(const Setting& setting) { return variable_for(setting.name); }

std::vector<std::string> environment_variable_names() {
  std::vector<std::string> names;
  for (char** entry = environ; entry && *entry; ++entry) {
    const std::string_view text(*entry);
    if (!text.starts_with("AUTHD_")) continue;
    names.emplace_back(text.substr(0, text.find('=')));
  }
  return names;
}

std::vector<Setting> grouped(std::string_view group, std::vector<Setting> rows) {
  for (auto& row : rows) {
    if (row.group.empty()) row.group = std::string(group);
  }
  return rows;
}

std::vector<std::string_view> list_items(std::string_view value) {
  std::vector<std::string_view> items;
  auto separator = [](char c) { return c == ',' || std::isspace(static_cast<unsigned char>(c)) != 0; };
  while (!value.empty()) {
    std::size_t end = 0;
    while (end < value.size() && !separator(value[end])) ++end;
    if (end > 0) items.push_back(value.substr(0, end));
    value.remove_prefix(std::min(end + 1, value.size()));
  }
  return items;
}

Setting seconds(std::string name, std::chrono::seconds& field, long long min, long long max, std::string doc) {
  return detail::bounded(std::move(name), Kind::seconds, field, min, max, std::move(doc));
}

Setting milliseconds(std::string name, std::chrono::milliseconds& field, long long min, long long max,
                     std::string doc) {
  return detail::bounded(std::move(name), Kind::milliseconds, field, min, max, std::move(doc));
}

Setting boolean(std::string name, bool& field, std::string doc) {
  Setting s;
  s.name = std::move(name);
  s.kind = Kind::boolean;
  s.doc = std::move(doc);
  s.assign = [&field](std::string_view v) -> Result<void> {
    auto b = parse_bool(v);
    if (!b) return std::unexpected(b.error());
    field = *b;
    return {};
  };
  s.show = [&field] { return std::string(field ? "true" : "false"); };
  return s;
}

Setting text(std::string name, std::string& field, std::string doc) {
  Setting s;
  s.name = std::move(name);
  s.kind = Kind::text;
  s.doc = std::move(doc);
  s.assign = [&field](std::string_view v) -> Result<void> {
    field = std::string(v);
    return {};
  };
  s.show = [&field] { return field; };
  return s;
}

Setting secret(std::string name, std::string& field, std::string doc) {
  Setting s = text(std::move(name), field, std::move(doc));
  s.kind = Kind::secret;
  return s;
}

Setting path(std::string name, std::filesystem::path& field, std::string doc) {
  Setting s;
  s.name = std::move(name);
  s.kind = Kind::path;
  s.doc = std::move(doc);
  s.assign = [&field](std::string_view v) -> Result<void> {
    field = std::filesystem::path(std::string(v));
    return {};
  };
  s.show = [&field] { return field.string(); };
  return s;
}

void Loader::add(std::vector<Setting> table) {
  for (auto& row : table) {
    defaults_.emplace_back(row.name, row.show());
    documented_.push_back({row, defaults_.back().second});
    rows_.push_back(std::move(row));
  }
}

void Loader::add(DynamicSettings& dynamic) {
  dynamic_.push_back(&dynamic);
  for (auto& row : dynamic.reference()) {
    auto value = row.show ? row.show() : std::string();
    documented_.push_back({std::move(row), std::move(value)});
  }
}

void Loader::add_check(std::function<Result<void>()> check) { checks_.push_back(std::move(check)); }

Result<void> Loader::assign(std::string_view name, std::string_view value, const std::string& where) {
  for (auto* dynamic : dynamic_) {
    auto taken = dynamic->assign(name, value);
    if (!taken) return fail(Errc::config, where + ": " + std::string(name) + ": " + taken.error().message);
    if (*taken) return {};
  }
  const auto row = std::find_if(rows_.begin(), rows_.end(), [&](const Setting& s) { return s.name == name; });
  if (row == rows_.end()) {
    if (skip_unknown_) return {};
    return fail(Errc::config, where + ": unknown setting '" + std::string(name) + "'");
  }
  if (auto ok = row->assign(value); !ok) {
    return fail(Errc::config, where + ": " + std::string(name) + ": " + ok.error().message);
  }
  return {};
}

Result<std::optional<Line>> parse_line(std::string_view text) {
  text = text::trim(text);
  if (text.empty() || text.front() == '#') return std::optional<Line>();
  const auto eq = text.find('=');
  if (eq == std::string_view::npos) return fail(Errc::config, "expected 'name = value'");
  Line line{std::string(text::trim(text.substr(0, eq))), {}};
  if (line.name.empty()) return fail(Errc::config, "expected 'name = value'");
  auto rest = text::trim(text.substr(eq + 1));
  if (!rest.empty() && rest.front() == '"') {
    // A quoted value keeps '#' and spaces; \" and \\ are the only escapes.
    std::size_t i = 1;
    for (; i < rest.size() && rest[i] != '"'; ++i) {
      if (rest[i] == '\\' && i + 1 < rest.size() && (rest[i + 1] == '"' || rest[i + 1] == '\\')) ++i;
      line.value.push_back(rest[i]);
    }
    if (i >= rest.size()) return fail(Errc::config, "unterminated quoted value");
    const auto after = text::trim(rest.substr(i + 1));
    if (!after.empty() && after.front() != '#') return fail(Errc::config, "text after the closing quote");
    return std::optional<Line>(std::move(line));
  }
  line.value = std::string(text::trim(rest.substr(0, rest.find('#'))));
  return std::optional<Line>(std::move(line));
}

Result<void> Loader::load(const std::filesystem::path& file, bool optional_file, const EnvLookup& env) {
  if (!file.empty()) {
    std::error_code ec;
    const bool skip = optional_file && !std::filesystem::exists(file, ec);
    if (!skip) {
      std::ifstream in(file);
      if (!in || !std::filesystem::is_regular_file(file, ec)) {
        return fail(Errc::config, "cannot read config file " + file.string());
      }
      std::string text;
      for (int number = 1; std::getline(in, text); ++number) {
        const auto where = file.string() + ":" + std::to_string(number);
        auto line = parse_line(text);
        if (!line) return fail(Errc::config, where + ": " + line.error().message);
        if (!*line) continue;
        if (auto ok = assign((*line)->name, (*line)->value, where); !ok) return ok;
      }
      if (in.bad()) return fail(Errc::config, "cannot read config file " + file.string());
    }
  }
  for (const auto& row : rows_) {
    const auto variable = variable_for(row);
    if (const char* value = env(variable.c_str())) {
      if (auto ok = row.assign(text::trim(value)); !ok) {
        return fail(Errc::config, "environment " + variable + ": " + row.name + ": " + ok.error().message);
      }
    }
  }
  for (auto* dynamic : dynamic_) {
    if (auto ok = dynamic->assign_environment(env); !ok) return ok;
  }
  for (auto* dynamic : dynamic_) {
    if (auto ok = dynamic->finish(); !ok) return ok;
  }
  if (auto ok = check_variables(); !ok) return ok;
  for (const auto& check : checks_) {
    if (auto ok = check(); !ok) return ok;
  }
  return {};
}

Result<void> Loader::check_variables() const {
  if (!present_) return {};
  std::vector<std::string> known(std::begin(kNonSettingVariables), std::end(kNonSettingVariables));
  for (const auto& row : rows_) known.push_back(variable_for(row));
  for (const auto* dynamic : dynamic_) {
    for (auto& variable : dynamic->variables()) known.push_back(std::move(variable));
  }
  for (const auto& variable : *present_) {
    if (std::find(known.begin(), known.end(), variable) != known.end()) continue;
    std::string message = "environment " + variable + ": unknown setting (a variable is AUTHD_ and a setting's name "
                          "in upper case)";
    const auto nearest = std::min_element(known.begin(), known.end(), [&](const auto& a, const auto& b) {
      return distance(variable, a) < distance(variable, b);
    });
    if (nearest != known.end() && distance(variable, *nearest) <= std::max<std::size_t>(3, variable.size() / 4)) {
      message += "; did you mean " + *nearest + "?";
    }
    return fail(Errc::config, message);
  }
  return {};
}

std::string Loader::print() const {
  std::string out;
  for (const auto& row : rows_) {
    const auto value = row.show();
    out += row.name + " = ";
    if (row.kind == Kind::secret) out += value.empty() ? "" : "(set)";
    else if (value.find_first_of("# \t\"") != std::string::npos) out += '"' + value + '"';
    else out += value;
    out += '\n';
  }
  for (const auto* dynamic : dynamic_) {
    for (const auto& line : dynamic->describe()) out += line + '\n';
  }
  return out;
}

std::vector<std::string> Loader::names() const {
  std::vector<std::string> names;
  for (const auto& row : rows_) names.push_back(row.name);
  for (const auto* dynamic : dynamic_) {
    for (auto& name : dynamic->names()) names.push_back(std::move(name));
  }
  return names;
}

ConfigSource config_source(const EnvLookup& env, const std::filesystem::path& compiled_default) {
  if (const char* explicit_file = env("AUTHD_CONFIG"); explicit_file && *explicit_file) {
    return {explicit_file, false};
  }
  return {compiled_default, true};
}

}  // namespace authd::settings
