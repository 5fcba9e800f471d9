// Which capability a request to a protected application needs: the rules
// behind the FastCGI authorizer and GET /auth/check.
//
// A rule is "PREFIX METHOD REQUIREMENT [case-insensitive]":
//   PREFIX       a canonical path prefix ("/admin/", "/files/report.pdf", "/");
//                a prefix ending in '/' also covers the path without it
//                ("/app/admin/" covers "/app/admin")
//   METHOD       an HTTP method, or * for any
//   REQUIREMENT  read | create | update | delete (a valid token whose role has
//                it), authenticated (any valid token), public (no token),
//                method (the method's capability: GET/HEAD/OPTIONS -> read,
//                POST -> create, PUT/PATCH -> update, anything else -> delete)
//                or deny (nobody)
//   case-insensitive  optional: the prefix matches whatever the ASCII case, for
//                an application or file system that compares so. The default is
//                exact, as Linux file systems and most applications compare.
// Paths are canonical (request_path.hpp) before they are matched. The longest
// matching prefix wins; among its rules a named method beats *. A path that no
// rule matches gets, in authorizer mode, `authorize_unmatched`: deny (the
// default) or method; at GET /auth/check (forward-auth, which a proxy asks for
// the locations it chose to protect), `check_unmatched`: method (the default,
// as before rules existed) or deny.
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
  bool denied = false;                   // nobody gets through
  bool needs_token = true;
  std::optional<Capability> capability;  // with needs_token: none = any valid token
};

enum class Unmatched { deny, method };
enum class AccessPoint { authorizer, forward_auth };

struct AccessRule {
  std::string prefix;
  std::string method;  // upper case, or "*"
  AccessRequirement requirement;
  bool by_method = false;    // requirement "method": the method's capability
  bool ignore_case = false;  // "case-insensitive"
};

class AccessRules {
 public:
  // Parses rules separated by ';' or newlines. Error config naming the rule.
  static Result<AccessRules> parse(std::string_view text);

  // Adds `more` after these rules (the file may name authorize_rule repeatedly).
  void append(const AccessRules& more) { rules_.insert(rules_.end(), more.rules_.begin(), more.rules_.end()); }

  // `path` must be canonical (canonical_path).
  AccessRequirement decide(std::string_view method, std::string_view path,
                           AccessPoint at = AccessPoint::authorizer) const;
  const std::vector<AccessRule>& rules() const noexcept { return rules_; }

  Unmatched unmatched = Unmatched::deny;          // authorize_unmatched
  Unmatched check_unmatched = Unmatched::method;  // check_unmatched

  static Capability default_capability(std::string_view method) noexcept;

 private:
  std::vector<AccessRule> rules_;
};

// authorize_rule (repeatable in the file; AUTHD_AUTHORIZE_RULE, ';'-separated)
// authorize_unmatched and check_unmatched (deny | method).
std::vector<settings::Setting> access_rule_settings(AccessRules& rules);

}  // namespace authd
