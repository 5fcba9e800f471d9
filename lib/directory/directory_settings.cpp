// The directory_* settings, checked once at start, and the pure parts of the
// directory client: filter escaping (RFC 4515), DN comparison, groups to role,
// reading ids and account flags, AD's unicodePwd values.
#include <charconv>
#include <cstdint>
#include <fstream>
#include <sstream>

#include "authd/directory.hpp"
#include "authd/text.hpp"

namespace authd {
namespace {

using settings::Setting;

// A row whose value is several items separated by `;` (DNs hold commas),
// appended to `field` (the setting may be repeated).
Setting dn_list(std::string name, std::vector<std::string>& field, std::string doc) {
  Setting s;
  s.name = std::move(name);
  s.kind = settings::Kind::list;
  s.doc = std::move(doc);
  s.assign = [&field](std::string_view value) -> Result<void> {
    while (!value.empty()) {
      const auto end = value.find(';');
      const auto item = text::trim(value.substr(0, end));
      if (!item.empty()) field.emplace_back(item);
      if (end == std::string_view::npos) break;
      value.remove_prefix(end + 1);
    }
    return {};
  };
  s.show = [&field] {
    std::string out;
    for (const auto& item : field) out += (out.empty() ? "" : "; ") + item;
    return out;
  };
  return s;
}

Setting url_list(std::vector<std::string>& field) {
  Setting s;
  s.name = "directory_urls";
  s.kind = settings::Kind::list;
  s.doc =
      "The directory servers (docs/directory.md), tried in this order until one answers: ldap://host:389, "
      "ldaps://host:636 or ldapi:// (a local socket, e.g. ldapi://%2Frun%2Fslapd%2Fldapi), separated by spaces "
      "or commas. Empty = no directory users (the default). ldap:// to a host that is not on loopback must use "
      "StartTLS unless directory_allow_plaintext.";
  s.assign = [&field](std::string_view value) -> Result<void> {
    for (const auto item : settings::list_items(value)) field.emplace_back(item);
    return {};
  };
  s.show = [&field] {
    std::string out;
    for (const auto& item : field) out += (out.empty() ? "" : " ") + item;
    return out;
  };
  return s;
}

bool valid_attribute(std::string_view name) {
  if (name.empty() || name.size() > 128) return false;
  for (const unsigned char c : name) {
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
          c == ';')) {
      return false;
    }
  }
  return true;
}

// Whether `filter` is one parenthesised expression with balanced parentheses.
bool balanced_filter(std::string_view filter) {
  if (filter.size() < 3 || filter.front() != '(' || filter.back() != ')') return false;
  int depth = 0;
  for (std::size_t i = 0; i < filter.size(); ++i) {
    if (filter[i] == '\\') {
      ++i;
      continue;
    }
    if (filter[i] == '(') ++depth;
    if (filter[i] == ')' && --depth < 0) return false;
    if (depth == 0 && i + 1 < filter.size()) return false;
  }
  return depth == 0;
}

}  // namespace

std::vector<settings::Setting> directory_settings(DirectorySettings& s) {
  return settings::grouped("Directory", {
      url_list(s.urls),
      settings::boolean("directory_allow_plaintext", s.allow_plaintext,
                        "Talk to an ldap:// server that is not on loopback without StartTLS: the service "
                        "account's and every signing-in user's password then cross the network readable. Off: "
                        "StartTLS is required there, and a server that refuses it counts as down."),
      settings::path("directory_ca_file", s.ca_file,
                     "The CA certificates (PEM) that the servers' TLS certificates (ldaps://, StartTLS) must chain "
                     "to; empty = the system's. The server's name is always checked against its certificate."),
      settings::text("directory_bind_dn", s.bind_dn,
                     "The service account that searches the directory (e.g. cn=authd,ou=services,dc=example,dc=org); "
                     "empty = anonymous searches."),
      settings::path("directory_bind_password_file", s.bind_password_file,
                     "A file holding the service account's password (one line; a final newline is dropped), "
                     "readable by its owner only (mode 600, else the start stops): never in the configuration "
                     "file or the environment."),
      settings::text("directory_user_base", s.user_base,
                     "Where users are searched (the whole subtree), e.g. ou=people,dc=example,dc=org."),
      settings::text("directory_user_filter", s.user_filter,
                     "The search for the signing-in user: {username} is replaced by the typed name, escaped per "
                     "RFC 4515 (no wildcard or clause can be added through it). Exactly one entry must match; "
                     "Active Directory: (&(objectClass=user)(sAMAccountName={username}))."),
      settings::text("directory_username_attribute", s.username_attribute,
                     "The attribute whose value becomes the account's username in authd (uid; Active Directory: "
                     "sAMAccountName); the typed name when the entry has none."),
      settings::text("directory_id_attribute", s.id_attribute,
                     "The attribute that names the entry for good, kept with the account: entryUUID (OpenLDAP) or "
                     "objectGUID (Active Directory). A different value under the same name is a different person."),
      settings::text("directory_email_attribute", s.email_attribute, "The attribute holding the user's email address."),
      settings::text("directory_name_attribute", s.name_attribute, "The attribute holding the user's full name."),
      settings::choice("directory_groups", s.groups,
                       {{"member_of", DirectoryGroups::member_of}, {"search", DirectoryGroups::search}},
                       "How a user's groups are found: member_of reads directory_member_of_attribute of the user's "
                       "entry (OpenLDAP's memberof overlay, Active Directory); search looks under "
                       "directory_group_base with directory_group_filter."),
      settings::text("directory_member_of_attribute", s.member_of_attribute,
                     "The user entry's attribute listing its groups' DNs (directory_groups = member_of)."),
      settings::text("directory_group_base", s.group_base,
                     "Where groups are searched (directory_groups = search), e.g. ou=groups,dc=example,dc=org."),
      settings::text("directory_group_filter", s.group_filter,
                     "The group search (directory_groups = search): {dn} is replaced by the user's DN, escaped per "
                     "RFC 4515; nested Active Directory groups: (member:1.2.840.113556.1.4.1941:={dn})."),
      dn_list("directory_admin_groups", s.role_groups[static_cast<std::size_t>(Role::admin)],
              "Groups (DNs separated by ;) whose members get the role admin. A user in several mapped groups gets "
              "the most capable of their roles."),
      dn_list("directory_editor_groups", s.role_groups[static_cast<std::size_t>(Role::editor)],
              "Groups (DNs separated by ;) whose members get the role editor."),
      dn_list("directory_writer_groups", s.role_groups[static_cast<std::size_t>(Role::writer)],
              "Groups (DNs separated by ;) whose members get the role writer."),
      dn_list("directory_user_groups", s.role_groups[static_cast<std::size_t>(Role::user)],
              "Groups (DNs separated by ;) whose members get the role user."),
      settings::choice("directory_default_role", s.default_role,
                       {{"none", std::optional<Role>()},
                        {"user", std::optional<Role>(Role::user)},
                        {"writer", std::optional<Role>(Role::writer)},
                        {"editor", std::optional<Role>(Role::editor)},
                        {"admin", std::optional<Role>(Role::admin)}},
                       "The role of a directory user in none of the mapped groups; none = such a user cannot "
                       "sign in (and loses access once a refresh finds them in no mapped group)."),
      settings::choice("directory_name_clash", s.name_clash,
                       {{"local", NameClash::local}, {"directory", NameClash::directory}},
                       "A local account and a directory entry with the same name: local = the local account signs "
                       "in and the directory is not asked for that name; directory = while the directory has the "
                       "name, the local account cannot sign in by password and the directory user is refused "
                       "until an operator renames or deletes the local account (the log says so)."),
      settings::choice("directory_password_change", s.password_change,
                       {{"off", DirectoryPasswordChange::off}, {"user", DirectoryPasswordChange::user}},
                       "Whether a directory user changes their password through authd (PUT /me/password, the "
                       "pages): user = authd binds as the user's entry with the current password and has the "
                       "directory change it as that user, under the directory's password policy (OpenLDAP: the "
                       "Password Modify operation of RFC 3062, which the user's entry must be allowed to use on "
                       "its own password; Active Directory: unicodePwd, over ldaps:// or StartTLS only); off = "
                       "409, the directory manages the password. A reset by mail is refused either way."),
      settings::seconds("directory_network_timeout", s.network_timeout, 1, 60,
                        "Seconds to connect to one server before the next is tried; also the longest a request "
                        "waits (PostgreSQL: on a store thread) for the first check of a directory user this "
                        "process has not checked yet, before it answers 503."),
      settings::seconds("directory_operation_timeout", s.operation_timeout, 1, 120,
                        "Seconds one search or bind may take."),
      settings::seconds("directory_cache_ttl", s.cache_ttl, 1, 86400,
                        "How long a directory user's checked state (exists, not locked, groups) is used: it is "
                        "checked again every directory_cache_ttl / 2 while the user's tokens are used, so a "
                        "locked account or a removed group loses access within this time."),
      settings::seconds("directory_stale_limit", s.stale_limit, 1, 7 * 86400,
                        "While no directory server answers, a directory user whose state was checked less than "
                        "this long ago keeps access with it (new directory sign-ins answer 503); after it, 503. "
                        "At least directory_cache_ttl."),
  });
}

Result<void> finish_directory_settings(DirectorySettings& s) {
  if (!s.enabled()) return {};
  if (!directory_built()) {
    return fail(Errc::config, "directory_urls is set, but this authd was built without directory users "
                              "(AUTHD_WITH_LDAP=OFF)");
  }
  for (const auto& url : s.urls) {
    if (!url.starts_with("ldap://") && !url.starts_with("ldaps://") && !url.starts_with("ldapi://")) {
      return fail(Errc::config, "directory_urls: " + url + " is not an ldap://, ldaps:// or ldapi:// URL");
    }
  }
  if (s.user_base.empty()) return fail(Errc::config, "directory_user_base is required with directory_urls");
  if (!balanced_filter(s.user_filter) || s.user_filter.find("{username}") == std::string::npos) {
    return fail(Errc::config, "directory_user_filter must be one parenthesised LDAP filter holding {username}");
  }
  for (const auto* attribute : {&s.username_attribute, &s.id_attribute, &s.email_attribute, &s.name_attribute,
                                &s.member_of_attribute}) {
    if (!valid_attribute(*attribute)) {
      return fail(Errc::config, "directory attribute names must be letters, digits, - and . (got \"" + *attribute +
                                    "\")");
    }
  }
  if (s.groups == DirectoryGroups::search) {
    if (s.group_base.empty()) return fail(Errc::config, "directory_groups = search needs directory_group_base");
    if (!balanced_filter(s.group_filter) || s.group_filter.find("{dn}") == std::string::npos) {
      return fail(Errc::config, "directory_group_filter must be one parenthesised LDAP filter holding {dn}");
    }
  }
  bool any_group = false;
  for (const auto& groups : s.role_groups) any_group = any_group || !groups.empty();
  if (!any_group && !s.default_role) {
    return fail(Errc::config, "directory users need a role: map groups (directory_admin_groups, ...) or set "
                              "directory_default_role");
  }
  if (s.stale_limit < s.cache_ttl) return fail(Errc::config, "directory_stale_limit must be at least directory_cache_ttl");
  if (!s.bind_dn.empty()) {
    if (s.bind_password_file.empty()) {
      return fail(Errc::config, "directory_bind_dn needs directory_bind_password_file");
    }
    std::error_code ec;
    const auto status = std::filesystem::status(s.bind_password_file, ec);
    if (!ec && (status.permissions() & (std::filesystem::perms::group_all | std::filesystem::perms::others_all)) !=
                   std::filesystem::perms::none) {
      return fail(Errc::config, "directory_bind_password_file " + s.bind_password_file.string() +
                                    " is readable by others: chmod 600 it");
    }
    std::ifstream in(s.bind_password_file, std::ios::binary);
    if (!in) return fail(Errc::config, "cannot read directory_bind_password_file " + s.bind_password_file.string());
    std::ostringstream content;
    content << in.rdbuf();
    std::string password = content.str();
    while (!password.empty() && (password.back() == '\n' || password.back() == '\r')) password.pop_back();
    if (password.empty() || password.find('\0') != std::string::npos || password.find('\n') != std::string::npos) {
      return fail(Errc::config, "directory_bind_password_file must hold one non-empty line");
    }
    s.bind_password = std::move(password);
  }
  if (!s.ca_file.empty() && !std::filesystem::is_regular_file(s.ca_file)) {
    return fail(Errc::config, "directory_ca_file " + s.ca_file.string() + " is not a readable file");
  }
  return {};
}

std::string escape_filter_value(std::string_view value) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(value.size());
  for (const unsigned char c : value) {
    if (c == '*' || c == '(' || c == ')' || c == '\\' || c < 0x20 || c >= 0x7f) {
      out += '\\';
      out += kHex[c >> 4];
      out += kHex[c & 0x0f];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::string expand_filter(std::string_view pattern, std::string_view name, std::string_view value) {
  const std::string placeholder = "{" + std::string(name) + "}";
  const std::string escaped = escape_filter_value(value);
  std::string out;
  std::size_t at = 0;
  for (auto found = pattern.find(placeholder); found != std::string_view::npos;
       found = pattern.find(placeholder, at)) {
    out.append(pattern.substr(at, found - at));
    out += escaped;
    at = found + placeholder.size();
  }
  out.append(pattern.substr(at));
  return out;
}

bool same_dn(std::string_view a, std::string_view b) noexcept {
  const auto next = [](std::string_view& s, bool& after_comma) -> int {
    while (!s.empty()) {
      const char c = s.front();
      s.remove_prefix(1);
      if (after_comma && c == ' ') continue;
      after_comma = c == ',';
      return (c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : static_cast<unsigned char>(c);
    }
    return -1;
  };
  bool comma_a = false, comma_b = false;
  for (;;) {
    const int x = next(a, comma_a), y = next(b, comma_b);
    if (x != y) return false;
    if (x < 0) return true;
  }
}

std::optional<Role> role_for_groups(const DirectorySettings& settings, const std::vector<std::string>& groups) {
  for (const Role role : {Role::admin, Role::editor, Role::writer, Role::user}) {
    for (const auto& mapped : settings.role_groups[static_cast<std::size_t>(role)]) {
      for (const auto& group : groups) {
        if (same_dn(mapped, group)) return role;
      }
    }
  }
  return settings.default_role;
}

bool directory_url_on_loopback(std::string_view url) {
  if (url.starts_with("ldapi://")) return true;
  const auto scheme = url.find("://");
  if (scheme == std::string_view::npos) return false;
  std::string_view host = url.substr(scheme + 3);
  host = host.substr(0, host.find_first_of("/?#"));
  if (host.starts_with('[')) return host.substr(0, host.find(']') + 1) == "[::1]";
  host = host.substr(0, host.find(':'));
  if (text::iequals(host, "localhost")) return true;
  int octets = 0;
  bool first_is_127 = false;
  std::size_t i = 0;
  while (i <= host.size()) {
    std::size_t j = i;
    unsigned value = 0;
    while (j < host.size() && host[j] >= '0' && host[j] <= '9' && j - i < 3) value = value * 10 + (host[j++] - '0');
    if (j == i || value > 255) return false;
    if (octets == 0) first_is_127 = value == 127;
    ++octets;
    if (j == host.size()) break;
    if (host[j] != '.') return false;
    i = j + 1;
  }
  return octets == 4 && first_is_127;
}

std::string directory_id_text(std::string_view attribute, std::string_view value) {
  static constexpr char kHex[] = "0123456789abcdef";
  const auto hex = [](std::string& out, unsigned char c) {
    out += kHex[c >> 4];
    out += kHex[c & 0x0f];
  };
  std::string out;
  if (text::iequals(attribute, "objectGUID") && value.size() == 16) {
    // Data1 (4 bytes), Data2, Data3 (2 each) little-endian; Data4 (8) as stored.
    static constexpr int kOrder[16] = {3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15};
    for (int i = 0; i < 16; ++i) {
      if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
      hex(out, static_cast<unsigned char>(value[kOrder[i]]));
    }
    return out;
  }
  bool printable = !value.empty();
  for (const unsigned char c : value) printable = printable && c >= 0x20 && c < 0x7f;
  if (printable) return std::string(value);
  for (const unsigned char c : value) hex(out, c);
  return out;
}

bool directory_account_disabled(std::string_view user_account_control, std::string_view computed) {
  // Both are a signed 32-bit integer's decimal text; unreadable = not set.
  const auto flags = [](std::string_view text) -> std::uint32_t {
    std::int64_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size()) return 0;
    return static_cast<std::uint32_t>(value);
  };
  constexpr std::uint32_t kAccountDisable = 0x2, kLockout = 0x10;
  return (flags(user_account_control) & kAccountDisable) != 0 || (flags(computed) & kLockout) != 0;
}

bool unicode_pwd_value(std::string_view utf8, std::string& out) {
  out.clear();
  out.reserve(2 * utf8.size() + 4);
  const auto unit = [&out](std::uint32_t u) {
    out += static_cast<char>(u & 0xff);
    out += static_cast<char>(u >> 8);
  };
  unit('"');
  for (std::size_t i = 0; i < utf8.size();) {
    const auto lead = static_cast<unsigned char>(utf8[i]);
    // The sequence's length and the least code point it may encode
    // (longer forms of a smaller one are refused, as are surrogates).
    std::size_t length = 0;
    std::uint32_t code = 0, least = 0;
    if (lead < 0x80) {
      length = 1, code = lead;
    } else if ((lead & 0xe0) == 0xc0) {
      length = 2, code = lead & 0x1f, least = 0x80;
    } else if ((lead & 0xf0) == 0xe0) {
      length = 3, code = lead & 0x0f, least = 0x800;
    } else if ((lead & 0xf8) == 0xf0) {
      length = 4, code = lead & 0x07, least = 0x10000;
    } else {
      return false;
    }
    if (length > utf8.size() - i) return false;
    for (std::size_t k = 1; k < length; ++k) {
      const auto next = static_cast<unsigned char>(utf8[i + k]);
      if ((next & 0xc0) != 0x80) return false;
      code = (code << 6) | (next & 0x3f);
    }
    if (code == 0 || code < least || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return false;
    if (code >= 0x10000) {
      code -= 0x10000;
      unit(0xd800 + (code >> 10));
      unit(0xdc00 + (code & 0x3ff));
    } else {
      unit(code);
    }
    i += length;
  }
  unit('"');
  return true;
}

}  // namespace authd
