// Which capability a request to a protected application needs: the rules
// behind the FastCGI authorizer and GET /auth/check.
//
// A rule is "PREFIX METHOD REQUIREMENT":
//   PREFIX       a path prefix ("/admin/", "/files/report.pdf", "/")
//   METHOD       an HTTP method, or * for any
//   REQUIREMENT  read | create | update | delete (a valid token whose role has
//                it), authenticated (any valid token), or public (no token)
// The longest matching prefix wins; among its rules a named method beats *.
// Without a matching rule the default applies: a valid token and the
// method's capability (GET/HEAD/OPTIONS -> read, POST -> create,
// PUT/PATCH -> update, DELETE -> delete; any other method -> delete).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "authd/error.hpp"
#include "authd/settings.hpp"
#include "authd/roles.hpp"

namespace authd {

struct AccessRequirement {
  bool needs_token = true;
  std::optional<Capability> capability;  // with needs_token: none = any valid token
};

struct AccessRule {
  std::string prefix;
  std::string method;  // upper case, or "*"
  AccessRequirement requirement;
};

class AccessRules {
 public:
  // Parses rules separated by ';' or newlines. Error config naming the rule.
  static Result<AccessRules> parse(std::string_view text);

  // Adds `more` after these rules (the file may name authorize_rule repeatedly).
  void append(const AccessRules& more) { rules_.insert(rules_.end(), more.rules_.begin(), more.rules_.end()); }

  AccessRequirement decide(std::string_view method, std::string_view path) const;
  const std::vector<AccessRule>& rules() const noexcept { return rules_; }

  static Capability default_capability(std::string_view method) noexcept;

 private:
  std::vector<AccessRule> rules_;
};

// authorize_rule (repeatable in the file; AUTHD_AUTHORIZE_RULES, ';'-separated).
std::vector<settings::Setting> access_rule_settings(AccessRules& rules);

// The path of a request URI, percent-decoded: no query, no fragment.
// nullopt when it cannot be a safe path (not absolute, a NUL byte, a bad
// %-escape, or a "." / ".." segment that could dodge a prefix rule).
std::optional<std::string> normalized_request_path(std::string_view uri);

}  // namespace authd
