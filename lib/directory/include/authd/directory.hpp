// Directory users (docs/directory.md): people kept in the organisation's
// LDAP directory (OpenLDAP, Active Directory) sign in with their directory password, and the
// directory's groups give their role. lib/directory/ is the one module that
// touches OpenLDAP's libldap (ldap_client.cpp); a build without it
// (AUTHD_WITH_LDAP=OFF, the shared-hosting release) refuses directory_urls at
// start (not_built.cpp).
//
//   authd::DirectoryUsers directory(settings.directory, events);
//   auto found = directory.sign_in("alice", "secret", now);   // off the event loop: it waits on the network
//   // found: the entry (dn, stable id, groups, role), nullopt = no such entry;
//   // errors: invalid_login (wrong password, >1 match, hostile input, no role), unavailable (no server answered)
//   auto role = directory.role_now("alice", stable_id, updated_at, now);  // the guard's check: never waits
//   role = directory.await_role("alice", stable_id, updated_at, now);    // off the event loop: may wait
//
// Every call that talks to a server runs on the caller's thread (a sign-in
// on the password lane) or on the refresher thread DirectoryUsers starts at
// the first sign-in; role_now only reads the cache the refresher keeps, and
// await_role waits (bounded) for the refresher's check of an account this
// process has not checked yet.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "authd/error.hpp"
#include "authd/events.hpp"
#include "authd/roles.hpp"
#include "authd/settings.hpp"

namespace authd {

// How a user's groups are found: the user entry's memberOf attribute
// (OpenLDAP's memberof overlay, Active Directory), or a search of the group
// base for groups naming the user's DN.
enum class DirectoryGroups { member_of, search };
// Which account signs in when a local account and a directory entry share a
// name: the local one (the directory is not asked for that name), or the
// directory's (the local account cannot sign in by password while the
// directory has the name; the directory account is refused too until an
// operator renames or deletes the local one).
enum class NameClash { local, directory };
// Whether a directory user may change their password through authd (PUT
// /me/password): off = refused (409, the directory manages it); user = authd
// has the directory change it as the user (DirectoryClient::change_password).
enum class DirectoryPasswordChange { off, user };

struct DirectorySettings {
  std::vector<std::string> urls;  // tried in order; empty = no directory users
  bool allow_plaintext = false;   // ldap:// off loopback without StartTLS
  std::filesystem::path ca_file;
  std::string bind_dn;
  std::filesystem::path bind_password_file;
  std::string bind_password;  // read from bind_password_file at start (finish_directory_settings)
  std::string user_base;
  std::string user_filter = "(&(objectClass=inetOrgPerson)(uid={username}))";
  std::string username_attribute = "uid";
  std::string id_attribute = "entryUUID";
  std::string email_attribute = "mail";
  std::string name_attribute = "cn";
  DirectoryGroups groups = DirectoryGroups::member_of;
  std::string member_of_attribute = "memberOf";
  std::string group_base;
  std::string group_filter = "(member={dn})";
  // The group DNs that give each role, indexed by Role (user, writer, editor, admin).
  std::array<std::vector<std::string>, 4> role_groups;
  std::optional<Role> default_role;  // in no mapped group: this role, or nullopt = refused
  NameClash name_clash = NameClash::local;
  DirectoryPasswordChange password_change = DirectoryPasswordChange::off;
  std::chrono::seconds network_timeout{5};
  std::chrono::seconds operation_timeout{10};
  std::chrono::seconds cache_ttl{60};
  std::chrono::seconds stale_limit{900};
  std::size_t username_max_length = 64;

  bool enabled() const noexcept { return !urls.empty(); }
};

// The `directory_*` settings (group "Directory").
std::vector<settings::Setting> directory_settings(DirectorySettings& settings);
// Checks them together and reads the bind password file. Error: config
// (also for directory_urls in a build without libldap).
Result<void> finish_directory_settings(DirectorySettings& settings);
// Whether this build has the directory client (AUTHD_WITH_LDAP).
bool directory_built() noexcept;

// RFC 4515 §3: a value placed in a search filter, with `*`, `(`, `)`, `\`,
// NUL, and every other byte outside printable ASCII written as \XX, so that
// no input can add a wildcard or a clause to the filter.
std::string escape_filter_value(std::string_view value);
// `pattern` with every `{name}` replaced by escape_filter_value(value).
std::string expand_filter(std::string_view pattern, std::string_view name, std::string_view value);
// Two DNs as written by the directory, compared ASCII case-insensitively and
// ignoring spaces after the separating commas.
bool same_dn(std::string_view a, std::string_view b) noexcept;
// The most capable role any of `groups` gives, else settings.default_role.
std::optional<Role> role_for_groups(const DirectorySettings& settings, const std::vector<std::string>& groups);
// Whether the host of an ldap:// or ldaps:// URL is loopback (localhost, a
// literal 127.a.b.c or ::1); ldapi:// (a local socket) counts as loopback.
bool directory_url_on_loopback(std::string_view url);
// The text kept as an entry's stable id: Active Directory's objectGUID (16
// bytes) in the GUID string form AD's tools show (the first three fields
// little-endian: the bytes 47 5a bc 14 44 f1 1c 44 ... are
// 14bc5a47-f144-441c-..., as Get-ADUser and samba-tool print it);
// another value as is when it is printable ASCII (entryUUID), else in hex.
std::string directory_id_text(std::string_view attribute, std::string_view value);
// Whether Active Directory says the account cannot sign in: userAccountControl
// has ACCOUNTDISABLE (0x2), or msDS-User-Account-Control-Computed has
// UF_LOCKOUT (0x10). Each is the attribute's decimal text, "" when absent.
bool directory_account_disabled(std::string_view user_account_control, std::string_view computed);
// Active Directory's unicodePwd value of a password (MS-ADTS, "unicodePwd"):
// the password between double quotes, in UTF-16LE, into `out`. False (and
// `out` not to be used) for text that is not UTF-8: an invalid or overlong
// sequence, a surrogate, a NUL.
bool unicode_pwd_value(std::string_view utf8, std::string& out);

// A user's entry as the directory has it now.
struct DirectoryEntry {
  std::string server;     // the URL that answered
  std::string dn;
  std::string stable_id;  // id_attribute's value as directory_id_text gives it
  std::string username;   // username_attribute's value ("" when the entry has none)
  std::string email;
  std::string fullname;
  std::vector<std::string> groups;  // group DNs
  bool locked = false;  // ppolicy's pwdAccountLockedTime is set, or AD's directory_account_disabled
  std::optional<Role> role;         // role_for_groups
};

// One search or sign-in against the servers, each on a connection of its own
// (tried in order; StartTLS, the service bind). Thread-safe: no state.
class DirectoryClient {
 public:
  explicit DirectoryClient(const DirectorySettings& settings) : settings_(settings) {}
  // The entry named `username` (searched with the service account), nullopt
  // when none matches. Errors: invalid_login (a username the checks refuse,
  // more than one match, a referral), unavailable (no server answered, the
  // service bind was refused), internal.
  Result<std::optional<DirectoryEntry>> find(std::string_view username) const;
  // Asked between the search and the bind with the entry found: an error
  // stops the sign-in before the password reaches the server (the throttle
  // of the entry's own name, when the user typed another of its names).
  using BeforeBind = std::function<Result<void>(const DirectoryEntry&)>;
  // find, then a bind as the entry's DN with `password`. Errors: as find,
  // before_bind's, and invalid_login for an empty password, a NUL byte, a
  // wrong password, a locked account.
  Result<std::optional<DirectoryEntry>> authenticate(std::string_view username, std::string_view password,
                                                     const BeforeBind& before_bind = {}) const;
  // A directory user's own password change (directory_password_change =
  // user): the entry `username` names, which must be the one whose stable id
  // is `stable_id`, is bound with `current`, and the directory replaces the
  // password by `next` as that user (never as the service account): the
  // Password Modify extended operation (RFC 3062) where the server offers
  // it, else Active Directory's unicodePwd (the old value deleted, the new
  // one added, over TLS only). The directory's password policy decides.
  // Returns the entry. Errors: invalid_login (wrong current password, a
  // locked account, another entry under the name, hostile input),
  // invalid_input naming new_password (the directory refused the new
  // password: its words), conflict (this directory lets the user change no
  // password, or not over this connection), unavailable (no server answered).
  Result<DirectoryEntry> change_password(std::string_view username, std::string_view stable_id,
                                         std::string_view current, std::string_view next) const;
  // Several finds on one connection (the refresher). Error: unavailable when
  // no server answered (the entries' own errors are in the list).
  Result<std::vector<Result<std::optional<DirectoryEntry>>>> find_each(const std::vector<std::string>& usernames) const;

 private:
  [[maybe_unused]] const DirectorySettings& settings_;  // unused in a build without libldap (not_built.cpp)
};

// The directory users' state for the guard: a cache of each signed-in
// user's entry (exists, locked, role), refreshed by a thread of its own
// every cache_ttl / 2 while the user keeps using a token.
class DirectoryUsers {
 public:
  DirectoryUsers(DirectorySettings settings, Events& events);
  ~DirectoryUsers();
  DirectoryUsers(const DirectoryUsers&) = delete;
  DirectoryUsers& operator=(const DirectoryUsers&) = delete;

  // Told (on the refresher thread) when a refresh finds a user's role
  // changed, so that the stored account follows: `role` is the new one.
  // Set once, before the first sign-in.
  using RoleChanged = std::function<void(const std::string& username, const std::string& stable_id, Role role)>;
  void on_role_changed(RoleChanged tell) { role_changed_ = std::move(tell); }

  bool enabled() const noexcept { return settings_.enabled(); }
  const DirectorySettings& settings() const noexcept { return settings_; }
  const DirectoryClient& client() const noexcept { return client_; }

  // DirectoryClient::authenticate, remembered for the guard when it succeeds.
  Result<std::optional<DirectoryEntry>> sign_in(std::string_view username, std::string_view password,
                                                std::int64_t now, const DirectoryClient::BeforeBind& before_bind = {});

  // DirectoryClient::change_password; the entry is remembered for the
  // guard when it succeeds, and the operator is told (Events::warning) when
  // the directory refuses the change itself (conflict), fails (internal) or
  // cannot be reached (unavailable, then with a message that names no
  // server). The caller checks settings().password_change.
  Result<DirectoryEntry> change_password(std::string_view username, std::string_view stable_id,
                                         std::string_view current, std::string_view next, std::int64_t now);

  // The role the directory gives `username` (the account whose stable id
  // is `stable_id`) as last checked, never waiting on a server: nullopt =
  // keep the stored role (no check yet, and the account was signed in or
  // refreshed at `updated_at`, less than cache_ttl ago; a check is asked
  // for). Errors: invalid_token (no longer in the directory, locked, in no
  // group that gives a role), unavailable (never checked here and not
  // recent, or the directory has not answered for longer than stale_limit).
  Result<std::optional<Role>> role_now(std::string_view username, std::string_view stable_id,
                                       std::int64_t updated_at, std::int64_t now) const;

  // role_now, but for an account this process has not checked yet and not
  // recent (another node's sign-in, or one before a restart), waits for the
  // refresher's check of it, up to network_timeout, instead of answering
  // unavailable at once; no wait while the directory is down. For a thread
  // that may wait on the network: never an event loop.
  Result<std::optional<Role>> await_role(std::string_view username, std::string_view stable_id,
                                         std::int64_t updated_at, std::int64_t now) const;

 private:
  struct State {
    std::string stable_id;
    bool exists = false;
    bool locked = false;
    std::optional<Role> role;
    std::int64_t checked_at = 0;
    mutable std::atomic<std::int64_t> used_at{0};
  };
  void remember(const DirectoryEntry& entry, std::string_view key, std::int64_t now);
  void ask_check(std::string_view key, std::string_view stable_id) const;
  void start_refresher() const;
  void refresh_loop();
  void refresh_due(std::int64_t now);

  DirectorySettings settings_;
  DirectoryClient client_;
  Events& events_;
  RoleChanged role_changed_;
  mutable std::shared_mutex states_mutex_;
  std::unordered_map<std::string, std::unique_ptr<State>> states_;  // by canonical (lower-case) username
  mutable std::mutex queue_mutex_;
  mutable std::condition_variable wake_;
  mutable std::condition_variable checked_;  // await_role: a refresh round ended (checks_done_ + 1)
  std::uint64_t checks_done_ = 0;             // under queue_mutex_
  mutable std::vector<std::pair<std::string, std::string>> asked_;  // (key, stable id) never checked here
  bool stopping_ = false;
  std::atomic<bool> down_{false};  // the latest refresh reached no server
  mutable std::once_flag started_;
  mutable std::thread refresher_;
};

}  // namespace authd
