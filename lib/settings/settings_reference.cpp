#include "authd/settings_reference.hpp"

#include <algorithm>

namespace authd::settings {
namespace {

// The rows of each group, groups in the order they first appear.
std::vector<std::pair<std::string, std::vector<const Documented*>>> by_group(const std::vector<Documented>& rows) {
  std::vector<std::pair<std::string, std::vector<const Documented*>>> groups;
  for (const auto& row : rows) {
    const std::string group = row.row.group.empty() ? "Other settings" : row.row.group;
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == group; });
    if (it == groups.end()) it = groups.insert(groups.end(), {group, {}});
    it->second.push_back(&row);
  }
  return groups;
}

std::string joined(const std::vector<std::string>& items, std::string_view last) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    out += (i == 0 ? "" : i + 1 == items.size() ? std::string(last) : std::string(", ")) + items[i];
  }
  return out;
}

// What values a row takes, e.g. "seconds, 1 to 3600".
std::string value_type(const Setting& row) {
  const auto range = [&] { return std::to_string(row.min) + " to " + std::to_string(row.max); };
  switch (row.kind) {
    case Kind::integer: return "whole number, " + range();
    case Kind::seconds: return "seconds, " + range();
    case Kind::milliseconds: return "milliseconds, " + range();
    case Kind::boolean: return "true or false";
    case Kind::text: return "text";
    case Kind::secret: return "secret text, printed as (set)";
    case Kind::path: return "path";
    case Kind::choice: return joined(row.choices, " or ");
    case Kind::list: return "list";
  }
  return "text";
}

// A value as written in the file: quoted when '#', a quote or outer spaces would change it.
std::string file_value(const std::string& value) {
  const bool quote = value.find_first_of("#\"") != std::string::npos ||
                     (!value.empty() && (value.front() == ' ' || value.back() == ' '));
  if (!quote) return value;
  std::string out = "\"";
  for (char c : value) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + '"';
}

// `text` as "# " lines of at most `width` columns.
std::string comment_lines(std::string_view text, std::size_t width = 79) {
  std::string out, line;
  std::size_t start = 0;
  while (start < text.size()) {
    auto end = text.find(' ', start);
    if (end == std::string_view::npos) end = text.size();
    const auto word = text.substr(start, end - start);
    if (!word.empty()) {
      if (!line.empty() && 2 + line.size() + 1 + word.size() > width) {
        out += "# " + line + "\n";
        line.clear();
      }
      line += (line.empty() ? "" : " ") + std::string(word);
    }
    start = end + 1;
  }
  if (!line.empty()) out += "# " + line + "\n";
  return out;
}

std::string conf(const std::vector<Documented>& rows) {
  std::string out =
      "# authd settings. Format: `name = value`, one per line; `#` starts a comment;\n"
      "# a value in double quotes keeps `#` and spaces. Every setting can be\n"
      "# overridden by an environment variable AUTHD_<NAME> in upper case\n"
      "# (state_dir -> AUTHD_STATE_DIR). authd and authctl both read this file (or\n"
      "# the file named by AUTHD_CONFIG) at start and on SIGHUP; an unknown name or a\n"
      "# bad value stops them with a one-line reason naming the file and line, and\n"
      "# so does an AUTHD_* variable that is no setting's (AUTHD_CONFIG and\n"
      "# AUTHD_BIN aside).\n"
      "#\n"
      "# Every setting is listed below, commented out, with its built-in default:\n"
      "# remove the leading `#` and change the value to set one.\n"
      "#\n"
      "# Generated from the settings tables by `authd --print-config=conf`\n"
      "# (scripts/settings-docs.sh): edit the tables, not this file's comments.\n";
  for (const auto& [group, members] : by_group(rows)) {
    std::string title = "# --- " + group + " ";
    if (title.size() < 79) title.append(79 - title.size(), '-');
    out += "\n" + title + "\n";
    for (const auto* documented : members) {
      const Setting& row = documented->row;
      out += "\n" + comment_lines(row.doc);
      out += comment_lines("(" + value_type(row) + "; " + variable_for(row) + ")");
      out += "#" + row.name + " =" + (documented->default_value.empty() ? "" : " " + file_value(documented->default_value)) +
             "\n";
    }
  }
  return out;
}

// Markdown text: `<` and `*` outside code spans escaped.
std::string markdown_text(std::string_view text) {
  std::string out;
  bool code = false;
  for (char c : text) {
    if (c == '`') code = !code;
    if (!code && c == '<') out += "&lt;";
    else if (!code && c == '*') out += "\\*";
    else out += c;
  }
  return out;
}

std::string markdown(const std::vector<Documented>& rows) {
  std::string out;
  for (const auto& [group, members] : by_group(rows)) {
    out += "## " + group + "\n";
    for (const auto* documented : members) {
      const Setting& row = documented->row;
      const auto& value = documented->default_value;
      out += "\n### `" + row.name + "`\n\n";
      out += markdown_text(value_type(row)) + " · default " + (value.empty() ? "empty" : "`" + value + "`") + " · `" +
             variable_for(row) + "`\n\n";
      out += markdown_text(row.doc) + "\n";
    }
    out += "\n";
  }
  if (!out.empty()) out.pop_back();
  return out;
}

// roff text: backslashes escaped, `code` in bold, no line starting with a control character.
std::string roff_text(std::string_view text) {
  std::string out;
  bool code = false;
  for (char c : text) {
    if (c == '`') {
      out += code ? "\\fR" : "\\fB";
      code = !code;
    } else if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += "\\-";
    } else {
      out += c;
    }
  }
  if (code) out += "\\fR";
  if (!out.empty() && (out.front() == '.' || out.front() == '\'')) out.insert(0, "\\&");
  return out;
}

std::string man(const std::vector<Documented>& rows) {
  std::string out = ".SH SETTINGS\n";
  for (const auto& [group, members] : by_group(rows)) {
    out += ".SS " + roff_text(group) + "\n";
    for (const auto* documented : members) {
      const Setting& row = documented->row;
      const auto& value = documented->default_value;
      out += ".TP\n.B " + roff_text(row.name) + "\n";
      out += roff_text(value_type(row)) + "; default " +
             (value.empty() ? std::string("empty") : "\\fB" + roff_text(value) + "\\fR") + "; \\fB" +
             roff_text(variable_for(row)) + "\\fR.\n.br\n";
      out += roff_text(row.doc) + "\n";
    }
  }
  return out;
}

}  // namespace

std::optional<ReferenceFormat> reference_format(std::string_view name) noexcept {
  if (name == "conf") return ReferenceFormat::conf;
  if (name == "markdown") return ReferenceFormat::markdown;
  if (name == "man") return ReferenceFormat::man;
  return std::nullopt;
}

std::string render_reference(const std::vector<Documented>& rows, ReferenceFormat format) {
  switch (format) {
    case ReferenceFormat::conf: return conf(rows);
    case ReferenceFormat::markdown: return markdown(rows);
    case ReferenceFormat::man: return man(rows);
  }
  return {};
}

}  // namespace authd::settings
