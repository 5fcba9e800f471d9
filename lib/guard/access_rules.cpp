#include "authd/access_rules.hpp"

#include <algorithm>
#include <cctype>

#include "authd/request_path.hpp"
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
    if (parts.size() != 3 && parts.size() != 4) return bad("expected PREFIX METHOD REQUIREMENT [case-insensitive]");
    if (parts[0].empty() || parts[0].front() != '/') return bad("the prefix must start with /");
    // A prefix that no canonical path can start with would never match.
    auto canonical = canonical_path(parts[0], false);
    if (!canonical || *canonical != parts[0]) return bad("the prefix must be a canonical path (no //, ., .., ;)");
    AccessRule rule;
    rule.prefix = std::string(parts[0]);
    rule.method = std::string(parts[1]);
    std::transform(rule.method.begin(), rule.method.end(), rule.method.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    if (parts[2] == "public") {
      rule.requirement = {false, false, std::nullopt};
    } else if (parts[2] == "authenticated") {
      rule.requirement = {false, true, std::nullopt};
    } else if (parts[2] == "deny") {
      rule.requirement = {true, true, std::nullopt};
    } else if (parts[2] == "method") {
      rule.by_method = true;
    } else if (auto capability = parse_capability(parts[2])) {
      rule.requirement = {false, true, capability};
    } else {
      return bad("requirement must be read, create, update, delete, authenticated, public, method or deny");
    }
    if (parts.size() == 4) {
      if (parts[3] != "case-insensitive") return bad("the fourth word may only be case-insensitive");
      rule.ignore_case = true;
      std::transform(rule.prefix.begin(), rule.prefix.end(), rule.prefix.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
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

namespace {

// `rule.prefix` covers `path`: a plain prefix, or the directory itself
// without its trailing slash.
bool covers(const AccessRule& rule, std::string_view path, std::string_view lowered) {
  const std::string_view subject = rule.ignore_case ? lowered : path;
  if (subject.starts_with(rule.prefix)) return true;
  return rule.prefix.size() > 1 && rule.prefix.back() == '/' &&
         subject == std::string_view(rule.prefix).substr(0, rule.prefix.size() - 1);
}

}  // namespace

AccessRequirement AccessRules::decide(std::string_view method, std::string_view path, AccessPoint at) const {
  std::string lowered(path);
  std::transform(lowered.begin(), lowered.end(), lowered.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  const AccessRule* best = nullptr;
  for (const auto& rule : rules_) {
    if (!covers(rule, path, lowered)) continue;
    if (rule.method != "*" && rule.method != method) continue;
    if (!best || rule.prefix.size() > best->prefix.size() ||
        (rule.prefix.size() == best->prefix.size() && best->method == "*" && rule.method != "*")) {
      best = &rule;
    }
  }
  if (best && !best->by_method) return best->requirement;
  const Unmatched when_unmatched = at == AccessPoint::forward_auth ? check_unmatched : unmatched;
  if (!best && when_unmatched == Unmatched::deny) return {true, true, std::nullopt};
  return {false, true, default_capability(method)};
}

std::vector<settings::Setting> access_rule_settings(AccessRules& rules) {
  settings::Setting s;
  s.name = "authorize_rule";
  s.kind = settings::Kind::list;
  s.doc =
      "A rule of the FastCGI authorizer and of GET /auth/check (docs/protecting-apps.md): PREFIX METHOD "
      "REQUIREMENT [case-insensitive], where METHOD is an HTTP method or *, and REQUIREMENT public, "
      "authenticated, read, create, update, delete, method (GET, HEAD, OPTIONS read, POST create, PUT/PATCH update, DELETE "
      "delete) or deny; e.g. `/app/admin/ * delete`. Repeat the line for more rules (in the environment: "
      "AUTHD_AUTHORIZE_RULE='rule; rule'). The fourth word makes the prefix match whatever the ASCII case "
      "(default: exact, as Linux file systems compare). Paths are canonicalised first (one %-decoding, ., .. and "
      "// resolved, ;params cut; an encoded `/` or `\\`, %25, NUL or invalid UTF-8 is refused with 400); a rule for "
      "/app/admin/ also covers /app/admin.";
  s.group = "Protecting other applications";
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
             (rule.by_method                  ? std::string("method")
              : rule.requirement.denied       ? std::string("deny")
              : !rule.requirement.needs_token ? std::string("public")
              : rule.requirement.capability   ? std::string(to_string(*rule.requirement.capability))
                                              : std::string("authenticated"));
      if (rule.ignore_case) out += " case-insensitive";
    }
    return out;
  };
  std::vector<settings::Setting> table;
  table.push_back(std::move(s));
  table.push_back(settings::choice("authorize_unmatched", rules.unmatched,
                                   {{"deny", Unmatched::deny}, {"method", Unmatched::method}},
                                   "What the FastCGI authorizer does with a path no authorize_rule matches (the web "
                                   "server asks for every request of the protected tree): deny (403), or method "
                                   "(GET, HEAD, OPTIONS read, POST create, PUT/PATCH update, DELETE delete)."));
  table.push_back(settings::choice("check_unmatched", rules.check_unmatched,
                                   {{"method", Unmatched::method}, {"deny", Unmatched::deny}},
                                   "What GET /auth/check does with a path no authorize_rule matches (the proxy asks "
                                   "only for the locations it protects): method (GET, HEAD, OPTIONS read, POST create, "
                                   "PUT/PATCH update, DELETE delete), or deny (403)."));
  return settings::grouped("Protecting other applications", std::move(table));
}

}  // namespace authd
