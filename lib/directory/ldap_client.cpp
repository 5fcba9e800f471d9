// The directory client on OpenLDAP's libldap: the only file that includes
// <ldap.h>. Every handle libldap gives (LDAP*, LDAPMessage*, BerElement*,
// berval arrays, strings) is owned by a unique_ptr with its own free call.
// Referrals are never chased (LDAP_OPT_REFERRALS off): a continuation
// reference in a search is not an entry, and a referral answer refuses.
#include <sys/time.h>

#include <ldap.h>

#include <cstring>  // explicit_bzero
#include <memory>
#include <utility>

#include "authd/directory.hpp"

namespace authd {
namespace {

struct LdapClose {
  void operator()(LDAP* ld) const noexcept { ldap_unbind_ext_s(ld, nullptr, nullptr); }
};
struct MessageFree {
  void operator()(LDAPMessage* message) const noexcept { ldap_msgfree(message); }
};
struct ValuesFree {
  void operator()(berval** values) const noexcept { ldap_value_free_len(values); }
};
struct MemFree {
  void operator()(char* text) const noexcept { ldap_memfree(text); }
};
struct UrlFree {
  void operator()(LDAPURLDesc* url) const noexcept { ldap_free_urldesc(url); }
};
using LdapPtr = std::unique_ptr<LDAP, LdapClose>;
using MessagePtr = std::unique_ptr<LDAPMessage, MessageFree>;
using ValuesPtr = std::unique_ptr<berval*, ValuesFree>;
using TextPtr = std::unique_ptr<char, MemFree>;
using UrlPtr = std::unique_ptr<LDAPURLDesc, UrlFree>;

timeval to_timeval(std::chrono::seconds s) { return timeval{static_cast<time_t>(s.count()), 0}; }

// A result code that says the server (not the request) failed: the next
// server is tried, and a sign-in answers 503.
bool server_failed(int rc) {
  return rc == LDAP_SERVER_DOWN || rc == LDAP_CONNECT_ERROR || rc == LDAP_TIMEOUT || rc == LDAP_UNAVAILABLE ||
         rc == LDAP_BUSY || rc == LDAP_UNWILLING_TO_PERFORM || rc == LDAP_OTHER || rc == LDAP_LOCAL_ERROR;
}

std::string value_text(const berval* value) { return std::string(value->bv_val, value->bv_len); }

// Active Directory's capability in the root DSE's supportedCapabilities
// (LDAP_CAP_ACTIVE_DIRECTORY_OID, [MS-ADTS]).
constexpr std::string_view kActiveDirectoryCapability = "1.2.840.113556.1.4.800";

// How the server changes a user's password.
enum class PasswordProtocol { password_modify, active_directory, none };

// A server's diagnostic message as shown to the user: printable ASCII, at
// most 200 characters.
std::string shown_diagnostic(const char* text) {
  std::string out;
  for (const char* c = text ? text : ""; *c && out.size() < 200; ++c) {
    const auto b = static_cast<unsigned char>(*c);
    out += b >= 0x20 && b < 0x7f ? *c : ' ';
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

// One open, bound connection to the first server that answered.
class Connection {
 public:
  static Result<Connection> open(const DirectorySettings& settings);

  // The one entry `username` names (nullopt = none).
  Result<std::optional<DirectoryEntry>> find(std::string_view username) const;
  // A simple bind as `dn`. Errors: invalid_login, unavailable.
  Result<void> bind(const std::string& dn, std::string_view password) const;
  // What the server offers for a password change (its root DSE).
  Result<PasswordProtocol> password_protocol() const;
  // The bound user's password changed from `current` to `next` (entry `dn`).
  Result<void> change_password(PasswordProtocol protocol, const std::string& dn, std::string_view current,
                               std::string_view next) const;

 private:
  Connection(const DirectorySettings& settings, LdapPtr ld, std::string url)
      : settings_(&settings), ld_(std::move(ld)), url_(std::move(url)) {}
  Result<std::vector<std::string>> search_groups(const std::string& dn) const;
  // The answer to the request `msgid` (a password change): its result code
  // and the server's diagnostic message.
  Result<std::pair<int, std::string>> result_of(int msgid) const;
  std::vector<std::string> values(LDAPMessage* entry, const std::string& attribute) const;

  const DirectorySettings* settings_;
  LdapPtr ld_;
  std::string url_;
};

Result<LdapPtr> connect_one(const DirectorySettings& settings, const std::string& url) {
  LDAP* raw = nullptr;
  if (ldap_initialize(&raw, url.c_str()) != LDAP_SUCCESS || !raw) {
    return fail(Errc::config, "directory URL " + url + " is not valid");
  }
  LdapPtr ld(raw);
  const int version = LDAP_VERSION3;
  ldap_set_option(ld.get(), LDAP_OPT_PROTOCOL_VERSION, &version);
  ldap_set_option(ld.get(), LDAP_OPT_REFERRALS, LDAP_OPT_OFF);
  const timeval network = to_timeval(settings.network_timeout);
  const timeval operation = to_timeval(settings.operation_timeout);
  ldap_set_option(ld.get(), LDAP_OPT_NETWORK_TIMEOUT, &network);
  ldap_set_option(ld.get(), LDAP_OPT_TIMEOUT, &operation);
  const int demand = LDAP_OPT_X_TLS_DEMAND;
  ldap_set_option(ld.get(), LDAP_OPT_X_TLS_REQUIRE_CERT, &demand);
  if (!settings.ca_file.empty()) {
    ldap_set_option(ld.get(), LDAP_OPT_X_TLS_CACERTFILE, settings.ca_file.c_str());
  }
  const int is_server = 0;
  ldap_set_option(ld.get(), LDAP_OPT_X_TLS_NEWCTX, &is_server);

  const bool plain = url.starts_with("ldap://");
  if (plain && !(directory_url_on_loopback(url) || settings.allow_plaintext)) {
    if (const int rc = ldap_start_tls_s(ld.get(), nullptr, nullptr); rc != LDAP_SUCCESS) {
      return fail(Errc::unavailable, url + ": StartTLS failed: " + ldap_err2string(rc));
    }
  }
  berval credentials{static_cast<ber_len_t>(settings.bind_password.size()),
                     const_cast<char*>(settings.bind_password.data())};
  const int rc = ldap_sasl_bind_s(ld.get(), settings.bind_dn.empty() ? nullptr : settings.bind_dn.c_str(),
                                  LDAP_SASL_SIMPLE, &credentials, nullptr, nullptr, nullptr);
  if (rc != LDAP_SUCCESS) {
    return fail(Errc::unavailable, url + ": the service account's bind failed: " + ldap_err2string(rc));
  }
  return ld;
}

Result<Connection> Connection::open(const DirectorySettings& settings) {
  std::string reasons;
  for (const auto& url : settings.urls) {
    auto ld = connect_one(settings, url);
    if (ld) return Connection(settings, std::move(*ld), url);
    reasons += (reasons.empty() ? "" : "; ") + ld.error().message;
  }
  return std::unexpected(Error::retry_later(Errc::unavailable, 5, "the directory cannot be reached (" + reasons + ")"));
}

std::vector<std::string> Connection::values(LDAPMessage* entry, const std::string& attribute) const {
  std::vector<std::string> out;
  ValuesPtr found(ldap_get_values_len(ld_.get(), entry, attribute.c_str()));
  if (!found) return out;
  for (berval** value = found.get(); *value; ++value) out.push_back(value_text(*value));
  return out;
}

Result<std::vector<std::string>> Connection::search_groups(const std::string& dn) const {
  const std::string filter = expand_filter(settings_->group_filter, "dn", dn);
  char no_attributes[] = LDAP_NO_ATTRS;
  char* attributes[] = {no_attributes, nullptr};
  timeval limit = to_timeval(settings_->operation_timeout);
  LDAPMessage* raw = nullptr;
  const int rc = ldap_search_ext_s(ld_.get(), settings_->group_base.c_str(), LDAP_SCOPE_SUBTREE, filter.c_str(),
                                   attributes, 0, nullptr, nullptr, &limit, 1000, &raw);
  MessagePtr result(raw);
  if (server_failed(rc)) return fail(Errc::unavailable, url_ + ": group search failed: " + ldap_err2string(rc));
  if (rc != LDAP_SUCCESS && rc != LDAP_NO_SUCH_OBJECT) {
    return fail(Errc::internal, url_ + ": group search failed: " + ldap_err2string(rc));
  }
  std::vector<std::string> groups;
  for (LDAPMessage* entry = ldap_first_entry(ld_.get(), result.get()); entry;
       entry = ldap_next_entry(ld_.get(), entry)) {
    TextPtr group_dn(ldap_get_dn(ld_.get(), entry));
    if (group_dn) groups.emplace_back(group_dn.get());
  }
  return groups;
}

Result<std::optional<DirectoryEntry>> Connection::find(std::string_view username) const {
  if (username.empty() || username.size() > settings_->username_max_length ||
      username.find('\0') != std::string_view::npos) {
    return fail(Errc::invalid_login, "a username the directory is not asked for");
  }
  const std::string filter = expand_filter(settings_->user_filter, "username", username);
  const std::string member_of = settings_->member_of_attribute;
  std::vector<std::string> wanted = {settings_->id_attribute, settings_->username_attribute,
                                     settings_->email_attribute, settings_->name_attribute, "pwdAccountLockedTime",
                                     "userAccountControl", "msDS-User-Account-Control-Computed"};
  if (settings_->groups == DirectoryGroups::member_of) wanted.push_back(member_of);
  std::vector<char*> attributes;
  for (auto& name : wanted) attributes.push_back(name.data());
  attributes.push_back(nullptr);
  timeval limit = to_timeval(settings_->operation_timeout);
  LDAPMessage* raw = nullptr;
  // A size limit of 2: a second match is enough to refuse.
  const int rc = ldap_search_ext_s(ld_.get(), settings_->user_base.c_str(), LDAP_SCOPE_SUBTREE, filter.c_str(),
                                   attributes.data(), 0, nullptr, nullptr, &limit, 2, &raw);
  MessagePtr result(raw);
  if (rc == LDAP_SIZELIMIT_EXCEEDED) return fail(Errc::invalid_login, "the user search matched more than one entry");
  if (rc == LDAP_REFERRAL) return fail(Errc::invalid_login, "the user search answered a referral (not followed)");
  if (rc == LDAP_NO_SUCH_OBJECT) return std::optional<DirectoryEntry>();
  if (server_failed(rc)) return fail(Errc::unavailable, url_ + ": user search failed: " + ldap_err2string(rc));
  if (rc != LDAP_SUCCESS) return fail(Errc::internal, url_ + ": user search failed: " + ldap_err2string(rc));
  const int count = ldap_count_entries(ld_.get(), result.get());
  if (count == 0) return std::optional<DirectoryEntry>();
  if (count != 1) return fail(Errc::invalid_login, "the user search matched more than one entry");
  LDAPMessage* found = ldap_first_entry(ld_.get(), result.get());
  TextPtr dn(ldap_get_dn(ld_.get(), found));
  if (!dn || !*dn.get()) return fail(Errc::internal, "a directory entry without a DN");
  DirectoryEntry entry;
  entry.server = url_;
  entry.dn = dn.get();
  {
    ValuesPtr ids(ldap_get_values_len(ld_.get(), found, settings_->id_attribute.c_str()));
    if (!ids || !ids.get()[0] || ids.get()[1]) {
      return fail(Errc::invalid_login, entry.dn + " has no single " + settings_->id_attribute + " (no stable id)");
    }
    entry.stable_id = directory_id_text(settings_->id_attribute, value_text(ids.get()[0]));
  }
  if (auto names = values(found, settings_->username_attribute); names.size() == 1) entry.username = names[0];
  if (auto mails = values(found, settings_->email_attribute); !mails.empty()) entry.email = mails[0];
  if (auto fullnames = values(found, settings_->name_attribute); !fullnames.empty()) entry.fullname = fullnames[0];
  // OpenLDAP's ppolicy, or Active Directory's disabled or locked-out account
  // (a server without these attributes leaves them out of the answer).
  const auto first = [this, found](const char* attribute) {
    auto all = values(found, attribute);
    return all.empty() ? std::string() : all[0];
  };
  entry.locked = !values(found, "pwdAccountLockedTime").empty() ||
                 directory_account_disabled(first("userAccountControl"), first("msDS-User-Account-Control-Computed"));
  if (settings_->groups == DirectoryGroups::member_of) {
    entry.groups = values(found, member_of);
  } else {
    auto groups = search_groups(entry.dn);
    if (!groups) return std::unexpected(groups.error());
    entry.groups = std::move(*groups);
  }
  entry.role = role_for_groups(*settings_, entry.groups);
  return std::optional<DirectoryEntry>(std::move(entry));
}

Result<void> Connection::bind(const std::string& dn, std::string_view password) const {
  berval credentials{static_cast<ber_len_t>(password.size()), const_cast<char*>(password.data())};
  const int rc = ldap_sasl_bind_s(ld_.get(), dn.c_str(), LDAP_SASL_SIMPLE, &credentials, nullptr, nullptr, nullptr);
  if (rc == LDAP_SUCCESS) return {};
  if (rc == LDAP_SERVER_DOWN || rc == LDAP_TIMEOUT || rc == LDAP_CONNECT_ERROR || rc == LDAP_BUSY ||
      rc == LDAP_UNAVAILABLE) {
    return fail(Errc::unavailable, url_ + ": bind failed: " + ldap_err2string(rc));
  }
  return fail(Errc::invalid_login, "the directory refused the password");
}

Result<PasswordProtocol> Connection::password_protocol() const {
  char extensions[] = "supportedExtension";
  char capabilities[] = "supportedCapabilities";
  char* attributes[] = {extensions, capabilities, nullptr};
  timeval limit = to_timeval(settings_->operation_timeout);
  LDAPMessage* raw = nullptr;
  const int rc = ldap_search_ext_s(ld_.get(), "", LDAP_SCOPE_BASE, "(objectClass=*)", attributes, 0, nullptr, nullptr,
                                   &limit, 1, &raw);
  MessagePtr result(raw);
  if (server_failed(rc)) return fail(Errc::unavailable, url_ + ": reading the root DSE failed: " + ldap_err2string(rc));
  LDAPMessage* root = rc == LDAP_SUCCESS ? ldap_first_entry(ld_.get(), result.get()) : nullptr;
  if (!root) return PasswordProtocol::none;
  for (const auto& capability : values(root, capabilities)) {
    if (capability == kActiveDirectoryCapability) return PasswordProtocol::active_directory;
  }
  for (const auto& extension : values(root, extensions)) {
    if (extension == LDAP_EXOP_MODIFY_PASSWD) return PasswordProtocol::password_modify;
  }
  return PasswordProtocol::none;
}

Result<std::pair<int, std::string>> Connection::result_of(int msgid) const {
  timeval limit = to_timeval(settings_->operation_timeout);
  LDAPMessage* raw = nullptr;
  const int got = ldap_result(ld_.get(), msgid, LDAP_MSG_ALL, &limit, &raw);
  MessagePtr result(raw);
  if (got <= 0 || !result) {
    if (got == 0) ldap_abandon_ext(ld_.get(), msgid, nullptr, nullptr);
    return fail(Errc::unavailable, url_ + ": the password change got no answer");
  }
  int code = LDAP_OTHER;
  char* raw_text = nullptr;
  const int rc = ldap_parse_result(ld_.get(), result.get(), &code, nullptr, &raw_text, nullptr, nullptr, 0);
  TextPtr text(raw_text);
  if (rc != LDAP_SUCCESS) return fail(Errc::unavailable, url_ + ": an unreadable answer: " + ldap_err2string(rc));
  return std::pair<int, std::string>(code, shown_diagnostic(text.get()));
}

Result<void> Connection::change_password(PasswordProtocol protocol, const std::string& dn, std::string_view current,
                                         std::string_view next) const {
  int msgid = -1;
  int rc = LDAP_SUCCESS;
  // AD's values, wiped when they go.
  std::string old_value, new_value;
  struct Wipe {
    std::string& bytes;
    ~Wipe() { explicit_bzero(bytes.data(), bytes.size()); }
  } wipe_old{old_value}, wipe_new{new_value};
  if (protocol == PasswordProtocol::password_modify) {
    // No userIdentity: the bound user's own password (RFC 3062 §2).
    berval old_password{static_cast<ber_len_t>(current.size()), const_cast<char*>(current.data())};
    berval new_password{static_cast<ber_len_t>(next.size()), const_cast<char*>(next.data())};
    rc = ldap_passwd(ld_.get(), nullptr, &old_password, &new_password, nullptr, nullptr, &msgid);
  } else if (protocol == PasswordProtocol::active_directory) {
    // AD takes unicodePwd over an encrypted connection only.
    if (!ldap_tls_inplace(ld_.get())) {
      return fail(Errc::conflict, "Active Directory changes a password over TLS only: use ldaps:// (or StartTLS)");
    }
    if (!unicode_pwd_value(current, old_value)) return fail(Errc::invalid_login, "a current password that is not UTF-8");
    if (!unicode_pwd_value(next, new_value)) return fail_field("new_password", "new_password must be UTF-8 text");
    berval old_berval{static_cast<ber_len_t>(old_value.size()), old_value.data()};
    berval new_berval{static_cast<ber_len_t>(new_value.size()), new_value.data()};
    berval* old_values[] = {&old_berval, nullptr};
    berval* new_values[] = {&new_berval, nullptr};
    char attribute[] = "unicodePwd";
    LDAPMod remove{};
    remove.mod_op = LDAP_MOD_DELETE | LDAP_MOD_BVALUES;
    remove.mod_type = attribute;
    remove.mod_vals.modv_bvals = old_values;
    LDAPMod add{};
    add.mod_op = LDAP_MOD_ADD | LDAP_MOD_BVALUES;
    add.mod_type = attribute;
    add.mod_vals.modv_bvals = new_values;
    LDAPMod* changes[] = {&remove, &add, nullptr};
    rc = ldap_modify_ext(ld_.get(), dn.c_str(), changes, nullptr, nullptr, &msgid);
  } else {
    return fail(Errc::conflict, "the directory offers no password change authd knows (neither RFC 3062's Password "
                                "Modify nor Active Directory's unicodePwd)");
  }
  if (rc != LDAP_SUCCESS) return fail(Errc::unavailable, url_ + ": the password change failed: " + ldap_err2string(rc));
  auto answer = result_of(msgid);
  if (!answer) return std::unexpected(answer.error());
  const auto& [code, diagnostic] = *answer;
  const std::string why = diagnostic.empty() ? std::string(ldap_err2string(code)) : diagnostic;
  switch (code) {
    case LDAP_SUCCESS: return {};
    // The directory's password policy (ppolicy's quality, length, history,
    // minimum age; AD's complexity, length, history, minimum age). The
    // message starts with the field's name: the pages mark the field by it.
    case LDAP_CONSTRAINT_VIOLATION:
    case LDAP_INVALID_SYNTAX:
      return fail_field("new_password", "new_password refused by the directory: " + why);
    case LDAP_INVALID_CREDENTIALS: return fail(Errc::invalid_login, "the directory refused the current password");
    // The directory lets this user change no password (its ACL, or an
    // operation it does not take here).
    case LDAP_INSUFFICIENT_ACCESS:
    case LDAP_UNWILLING_TO_PERFORM:
    case LDAP_STRONG_AUTH_REQUIRED:
    case LDAP_CONFIDENTIALITY_REQUIRED:
    case LDAP_PROTOCOL_ERROR:
    case LDAP_UNAVAILABLE_CRITICAL_EXTENSION:
    case LDAP_NO_SUCH_ATTRIBUTE:
      return fail(Errc::conflict, "the directory does not let this account change its password (" + why +
                                      "): change it there");
    default:
      if (server_failed(code)) return fail(Errc::unavailable, url_ + ": the password change failed: " + why);
      return fail(Errc::internal, url_ + ": the password change failed: " + why);
  }
}

// The checks of a username and password before either reaches a server.
Result<void> check_credentials(const DirectorySettings& settings, std::string_view username, std::string_view password) {
  // An empty password would be an unauthenticated bind (RFC 4513 §5.1.2),
  // which servers answer with success: never asked.
  if (password.empty()) return fail(Errc::invalid_login, "an empty password");
  if (password.find('\0') != std::string_view::npos || username.find('\0') != std::string_view::npos) {
    return fail(Errc::invalid_login, "a NUL byte in the credentials");
  }
  if (username.empty() || username.size() > settings.username_max_length) {
    return fail(Errc::invalid_login, "a username the directory is not asked for");
  }
  return {};
}

}  // namespace

Result<std::optional<DirectoryEntry>> DirectoryClient::find(std::string_view username) const {
  auto connection = Connection::open(settings_);
  if (!connection) return std::unexpected(connection.error());
  return connection->find(username);
}

Result<std::optional<DirectoryEntry>> DirectoryClient::authenticate(std::string_view username,
                                                                   std::string_view password,
                                                                   const BeforeBind& before_bind) const {
  if (auto checked = check_credentials(settings_, username, password); !checked) return std::unexpected(checked.error());
  auto connection = Connection::open(settings_);
  if (!connection) return std::unexpected(connection.error());
  auto entry = connection->find(username);
  if (!entry || !*entry) return entry;
  if (before_bind) {
    if (auto go_on = before_bind(**entry); !go_on) return std::unexpected(go_on.error());
  }
  if (auto bound = connection->bind((*entry)->dn, password); !bound) return std::unexpected(bound.error());
  if ((*entry)->locked) return fail(Errc::invalid_login, "the directory account is locked");
  return entry;
}

Result<DirectoryEntry> DirectoryClient::change_password(std::string_view username, std::string_view stable_id,
                                                        std::string_view current, std::string_view next) const {
  if (auto checked = check_credentials(settings_, username, current); !checked) return std::unexpected(checked.error());
  if (next.empty() || next.find('\0') != std::string_view::npos) {
    return fail_field("new_password", "new_password must be non-empty text without NUL bytes");
  }
  auto connection = Connection::open(settings_);
  if (!connection) return std::unexpected(connection.error());
  auto entry = connection->find(username);
  if (!entry) return std::unexpected(entry.error());
  // The password goes to the entry the account is linked to, or nowhere.
  if (!*entry || (*entry)->stable_id != stable_id) {
    return fail(Errc::invalid_login, "the directory has no longer this account's entry under its name");
  }
  auto protocol = connection->password_protocol();
  if (!protocol) return std::unexpected(protocol.error());
  if (auto bound = connection->bind((*entry)->dn, current); !bound) return std::unexpected(bound.error());
  if ((*entry)->locked) return fail(Errc::invalid_login, "the directory account is locked");
  if (auto changed = connection->change_password(*protocol, (*entry)->dn, current, next); !changed) {
    return std::unexpected(changed.error());
  }
  return std::move(**entry);
}

Result<std::vector<Result<std::optional<DirectoryEntry>>>> DirectoryClient::find_each(
    const std::vector<std::string>& usernames) const {
  auto connection = Connection::open(settings_);
  if (!connection) return std::unexpected(connection.error());
  std::vector<Result<std::optional<DirectoryEntry>>> found;
  for (const auto& username : usernames) {
    found.push_back(connection->find(username));
    if (!found.back() && found.back().error().code == Errc::unavailable) return std::unexpected(found.back().error());
  }
  return found;
}

bool directory_built() noexcept { return true; }

}  // namespace authd
