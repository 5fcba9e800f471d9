#include "authd/access_rules.hpp"

#include <algorithm>
#include <cctype>

#include "authd/text.hpp"

namespace authd {
namespace {

using text::trim;
using text::words;

}  // namespace

Result<AccessRules> AccessRules::parse(std::string_view text) {
  AccessRules parsed;
  while (!text.empty()) {
    const auto end = std::min(text.find_first_of(";\n"), text.size());
    const auto line = trim(text.substr(0, end));
    text.remove_prefix(std::min(end + 1, text.size()));
    if (line.empty()) continue;
    const auto parts = words(line);
    const auto bad = [&](std::string why) {
      return fail(Errc::config, "access rule '" + std::string(line) + "': " + why);
    };
    if (parts.size() != 3) return bad("expected PREFIX METHOD REQUIREMENT");
    if (parts[0].empty() || parts[0].front() != '/') return bad("the prefix must start with /");
    AccessRule rule;
    rule.prefix = std::string(parts[0]);
    rule.method = std::string(parts[1]);
    std::transform(rule.method.begin(), rule.method.end(), rule.method.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    if (parts[2] == "public") {
      rule.requirement = {false, std::nullopt};
    } else if (parts[2] == "authenticated") {
      rule.requirement = {true, std::nullopt};
    } else if (auto capability = parse_capability(parts[2])) {
      rule.requirement = {true, capability};
    } else {
      return bad("requirement must be read, create, update, delete, authenticated or public");
    }
    parsed.rules_.push_back(std::move(rule));
  }
  return parsed;
}

Capability AccessRules::default_capability(std::string_view method) noexcept {
  if (method == "GET" || method == "HEAD" || method == "OPTIONS") return Capability::read;
  if (method == "POST") return Capability::create;
  if (method == "PUT" || method == "PATCH") return Capability::update;
  return Capability::delete_;  // DELETE, and anything unexpected: the strictest
}

AccessRequirement AccessRules::decide(std::string_view method, std::string_view path) const {
  const AccessRule* best = nullptr;
  for (const auto& rule : rules_) {
    if (!path.starts_with(rule.prefix)) continue;
    if (rule.method != "*" && rule.method != method) continue;
    if (!best || rule.prefix.size() > best->prefix.size() ||
        (rule.prefix.size() == best->prefix.size() && best->method == "*" && rule.method != "*")) {
      best = &rule;
    }
  }
  if (best) return best->requirement;
  return {true, default_capability(method)};
}

std::optional<std::string> normalized_request_path(std::string_view uri) {
  uri = uri.substr(0, std::min(uri.find_first_of("?#"), uri.size()));
  if (uri.empty() || uri.front() != '/') return std::nullopt;
  auto decoded = text::percent_decode(uri);
  if (!decoded) return std::nullopt;
  std::string path = std::move(*decoded);
  // Merge runs of '/' as web servers do before they serve the path (lighttpd,
  // nginx merge_slashes, Apache): /app//admin/x must meet the /app/admin/ rule.
  path.erase(std::unique(path.begin(), path.end(), [](char a, char b) { return a == '/' && b == '/'; }), path.end());
  // Refuse dot segments rather than resolve them: the web server already
  // normalised honest requests, so one here is an attempt to slip a prefix.
  std::string_view rest = path;
  while (!rest.empty()) {
    rest.remove_prefix(1);  // the '/'
    const auto segment = rest.substr(0, std::min(rest.find('/'), rest.size()));
    if (segment == "." || segment == "..") return std::nullopt;
    rest.remove_prefix(segment.size());
  }
  return path;
}

std::vector<settings::Setting> access_rule_settings(AccessRules& rules) {
  settings::Setting s;
  s.name = "authorize_rule";
  s.kind = settings::Kind::list;
  s.doc = "PREFIX METHOD public|authenticated|read|create|update|delete; repeatable";
  s.env = "AUTHD_AUTHORIZE_RULES";
  s.assign = [&rules](std::string_view value) -> Result<void> {
    auto more = AccessRules::parse(value);
    if (!more) return std::unexpected(more.error());
    rules.append(*more);
    return {};
  };
  s.show = [&rules] {
    std::string out;
    for (const auto& rule : rules.rules()) {
      if (!out.empty()) out += "; ";
      out += rule.prefix + " " + rule.method + " " +
             (!rule.requirement.needs_token ? std::string("public")
              : rule.requirement.capability ? std::string(to_string(*rule.requirement.capability))
                                            : std::string("authenticated"));
    }
    return out;
  };
  return {std::move(s)};
}

}  // namespace authd
