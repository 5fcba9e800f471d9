// Accounts: the use cases on users, independent of HTTP and of the store's
// backend — sign-up, password sign-in, third-party sign-in and linking, and
// the operator's changes (authctl and, later, the admin API share them).
#pragma once

#include <cstddef>
#include <string>

#include "authd/credentials.hpp"
#include "authd/error.hpp"
#include "authd/events.hpp"
#include "authd/json.hpp"
#include "authd/password.hpp"
#include "authd/settings.hpp"
#include "authd/store.hpp"
#include "authd/user.hpp"

namespace authd {

// The start of the invalid_login message of a stored hash refused unrun.
inline constexpr std::string_view kRefusedStoredHash = "stored password hash refused";

// The refusals of directory users' changes in authd (409, docs/directory.md).
inline constexpr std::string_view kDirectoryManagesPassword =
    "the directory manages this account's password: change it there";
inline constexpr std::string_view kDirectoryManagesRole =
    "the directory's groups give this account its role: change them there";
inline constexpr std::string_view kDirectoryManagesAccount =
    "the directory manages this account: remove it there (authctl delete --force removes it from authd)";

// A directory entry that signed in, as Accounts keeps it (docs/directory.md).
struct DirectoryAccount {
  std::string stable_id;
  std::string username;
  std::string fullname;
  std::string email;
  Role role = Role::user;
};

// Why Accounts::sign_in refused a password, for the log only (the client
// sees the same invalid_login either way).
enum class PasswordRefusal {
  wrong,          // a wrong password, an unknown user, an account without a password
  unusable_hash,  // a stored bcrypt hash of a refused cost, never run (kRefusedStoredHash)
  directory,      // the directory refused (its message says why: wrong password, several entries, ...)
};

class RefreshTokens;
class DirectoryUsers;
struct MailSettings;
namespace mail {
class Templates;
}

struct CredentialPolicy {
  std::size_t username_max_length = 64;     // characters: A-Z a-z 0-9 . _ @ + -
  std::size_t password_min_length = 1;      // bytes
  std::size_t password_max_length = 1024;   // bytes: checked before any hashing
  std::size_t fullname_max_length = 256;
  std::size_t email_max_length = 254;
};

struct SignupRequest {
  std::string username;
  std::string password;
  std::string fullname;
  std::string email;
};

// Reads {username,password,fullname,email} from a parsed JSON body. Every
// field is required and must be a string. Error: bad_request naming the field
// ("username is required", "email must be a string", ...).
Result<SignupRequest> signup_request_from_json(const Json& body);

// Checks lengths and formats without hashing anything. Error: bad_request
// naming the field.
Result<void> validate_signup(const SignupRequest& request, const CredentialPolicy& policy);
Result<void> validate_username(std::string_view username, const CredentialPolicy& policy);
Result<void> validate_password(std::string_view password, const CredentialPolicy& policy);
// The sign-up's rule for an address (length, one '@', no spaces or controls).
Result<void> validate_email(std::string_view email, const CredentialPolicy& policy);

// username_max_length, password_min_length, password_max_length,
// fullname_max_length, email_max_length.
std::vector<settings::Setting> credential_settings(CredentialPolicy& policy);

class Accounts {
 public:
  Accounts(Store& store, const PasswordHasher& hasher, CredentialPolicy policy)
      : store_(store), hasher_(hasher), policy_(policy) {}

  // Validates, hashes, creates with role user. Errors: invalid_input,
  // conflict (username taken), storage_full, internal.
  Result<User> sign_up(const SignupRequest& request);

  // An account made by an operator (authctl add): any role, fullname and
  // email optional. Errors as sign_up.
  Result<User> create(std::string_view username, std::string_view password, Role role, std::string_view fullname,
                      std::string_view email);

  // Error: invalid_login for an unknown user, a wrong password, an account
  // without a password, or an over-long input; the unknown-user path spends
  // the same hashing work as a real check. A stored bcrypt hash of a cost
  // not accepted (password.hpp) is refused without being run: invalid_login
  // whose message starts with kRefusedStoredHash (for the log, never shown).
  // `why`, when given, receives which refusal an invalid_login was.
  Result<User> sign_in(const BasicCredentials& credentials, PasswordRefusal* why = nullptr) const;

  // Third-party sign-in, in one write transaction. Accounts are linked by
  // provider + subject, never by a bare username. The linked account is
  // updated (fullname/email refreshed when given, role reset to user unless
  // keep_role, __v + 1); without one, a new account (no password, role user)
  // is created and linked under the first free username of: the hint, then
  // "<hint>.<provider>", then "<hint>.<provider>.<n>" (n = 2, 3, ...), so an
  // existing account is never taken over. Without `create_new` (signup_mode
  // = invite) an identity no account is linked to is refused: signup_closed.
  // Errors: storage_full, internal.
  Result<ExternalSignIn> sign_in_external(const ExternalIdentity& identity, bool keep_role, bool create_new = true);

  // A directory user who just proved their password to the directory: the
  // account linked to the entry's stable id ("directory:<id>", user.hpp),
  // created (no password) or updated (name, email, role, updated_at) in one
  // write. Errors: invalid_login (a name authd does not allow), conflict
  // (another account holds the name: a local one, or a directory account of
  // another entry), storage_full, internal.
  Result<User> sign_in_directory(const DirectoryAccount& account);
  // The role a directory refresh found for the account named `username`
  // (any case) when it is still the one linked to `stable_id`; anything
  // else is left alone. Errors: storage_full, internal.
  Result<void> follow_directory_role(std::string_view username, std::string_view stable_id, Role role);

  // The user's own password change: `current` must be right (else
  // invalid_login, same work as sign-in), `next` valid (invalid_input naming
  // "new_password"). In one write: the new hash, __v + 1, and the token
  // generation + 1, which ends every token issued before, and every pending
  // reset or verification link of the account is deleted. Returns the user.
  // A directory user's password is the directory's: with
  // directory_password_change = user (use_directory) the directory checks
  // `current` and takes `next` (DirectoryUsers::change_password: its
  // refusals as invalid_login, invalid_input naming "new_password",
  // conflict, unavailable), then the same write without a hash; else
  // conflict (kDirectoryManagesPassword).
  Result<User> change_password(std::string_view username, std::string_view current, std::string_view next);
  // The directory users' passwords go through (Core sets it; none = refused).
  void use_directory(DirectoryUsers* directory) noexcept { directory_ = directory; }

  // Operator changes. Errors: not_found, storage_full, internal.
  Result<User> find(std::string_view username) const;
  // conflict: a directory user (kDirectoryManagesRole, force or not), or
  // the user is the last admin and the role is not admin (unless
  // `force`, authctl's --force). The check and the write are one transaction.
  // An admin's demotion deletes the invitations they made, in the same
  // transaction; their ids go to `revoked_invitations` when given.
  Result<User> set_role(std::string_view username, Role role, bool force = false,
                        std::vector<std::string>* revoked_invitations = nullptr);
  // Deletes the user, its third-party links, second factors and pending
  // mailed links; its tokens stop working at once.
  // conflict: the user is the last admin (unless `force`), as set_role, or
  // a directory user (kDirectoryManagesAccount, unless `force`).
  // The invitations the user made go too, their ids to `revoked_invitations`.
  Result<void> remove(std::string_view username, bool force = false,
                      std::vector<std::string>* revoked_invitations = nullptr);
  Result<UserPage> list(const UserQuery& query) const;

  const CredentialPolicy& policy() const noexcept { return policy_; }

 private:
  Result<User> change_directory_password(const User& user, std::string_view current, std::string_view next);
  // The write that ends a password change of the account `user_id` whose
  // stored hash is still `checked_hash` (else conflict: changed meanwhile).
  Result<User> store_password_change(std::string_view username, const std::string& user_id,
                                     const std::string& checked_hash, std::string hash);

  Store& store_;
  const PasswordHasher& hasher_;
  CredentialPolicy policy_;
  DirectoryUsers* directory_ = nullptr;
};

// The policy after `user`'s password changed (PUT /me/password, POST
// /password/reset), once the change's own write ended the user's access
// tokens (token generation + 1) and pending links: every refresh family of
// the user ends and the owner is told (notice password_changed,
// tell_user in email_verification.hpp). Neither undoes the change: a
// failure is a warning to `events`. (lib/accounts/password_changed.cpp)
void after_password_change(RefreshTokens& refresh, Store& store, const MailSettings& mail,
                           const mail::Templates& templates, Events& events, const User& user, std::int64_t now);

}  // namespace authd
