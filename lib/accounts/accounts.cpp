#include "authd/accounts.hpp"

#include "authd/username_index.hpp"

#include <algorithm>
#include <array>
#include <cctype>

#include "authd/clock.hpp"
#include "authd/directory.hpp"
#include "authd/invitations.hpp"
#include "authd/mfa.hpp"
#include "authd/password_reset.hpp"

#include "authd/text.hpp"

namespace authd {
namespace {

constexpr std::array<std::string_view, 4> kSignupFields{"username", "password", "fullname", "email"};

using text::has_control;

// Deliberately simple (RFC 5321 allows far more than anyone uses): one '@'
// with something on both sides, no whitespace or control characters.
bool plausible_email(std::string_view email) {
  const auto at = email.find('@');
  if (at == std::string_view::npos || at == 0 || at + 1 >= email.size()) return false;
  if (email.find('@', at + 1) != std::string_view::npos) return false;
  for (unsigned char c : email) {
    if (c <= 0x20 || c == 0x7f) return false;
  }
  return true;
}

}  // namespace

Result<SignupRequest> signup_request_from_json(const Json& body) {
  if (!body.is_object()) return fail(Errc::invalid_input, "request body must be a JSON object");
  std::array<std::string, 4> values;
  for (std::size_t i = 0; i < kSignupFields.size(); ++i) {
    const auto field = kSignupFields[i];
    if (!body.has(field)) return fail(Errc::invalid_input, std::string(field) + " is required");
    const auto value = body.get_string(field);
    if (!value) return fail(Errc::invalid_input, std::string(field) + " must be a string");
    values[i] = std::string(*value);
  }
  return SignupRequest{std::move(values[0]), std::move(values[1]), std::move(values[2]), std::move(values[3])};
}

Result<void> validate_username(std::string_view name, const CredentialPolicy& policy) {
  bool name_ok = !name.empty() && name.size() <= policy.username_max_length;
  for (unsigned char c : name) name_ok = name_ok && is_username_char(c);
  if (!name_ok) {
    return fail(Errc::invalid_input, "username must be 1 to " + std::to_string(policy.username_max_length) +
                                       " characters of A-Z a-z 0-9 . _ @ + -");
  }
  return {};
}

Result<void> validate_password(std::string_view password, const CredentialPolicy& policy) {
  if (password.size() < policy.password_min_length) {
    return fail(Errc::invalid_input,
                "password must be at least " + std::to_string(policy.password_min_length) + " bytes");
  }
  if (password.size() > policy.password_max_length) {
    return fail(Errc::invalid_input,
                "password must be at most " + std::to_string(policy.password_max_length) + " bytes");
  }
  return {};
}

Result<void> validate_signup(const SignupRequest& request, const CredentialPolicy& policy) {
  if (auto ok = validate_username(request.username, policy); !ok) return ok;
  if (auto ok = validate_password(request.password, policy); !ok) return ok;
  if (request.fullname.size() > policy.fullname_max_length || has_control(request.fullname)) {
    return fail(Errc::invalid_input, "fullname must be at most " + std::to_string(policy.fullname_max_length) +
                                       " bytes without control characters");
  }
  return validate_email(request.email, policy);
}

Result<void> validate_email(std::string_view email, const CredentialPolicy& policy) {
  if (email.size() > policy.email_max_length || !plausible_email(email)) {
    return fail(Errc::invalid_input, "email must be an address like name@example.com");
  }
  return {};
}

std::vector<settings::Setting> credential_settings(CredentialPolicy& p) {
  return settings::grouped("Passwords and credentials", {
      settings::integer("username_max_length", p.username_max_length, 1, 256,
                        "Longest username, in characters of A-Z a-z 0-9 . _ @ + -. Checked before any hashing: a "
                        "longer name signs in as nobody."),
      settings::integer("password_min_length", p.password_min_length, 1, 1024,
                        "Shortest password a sign-up or password change accepts, in bytes; raise it to enforce a "
                        "policy (OWASP: 8, ASVS: 12). At most password_max_length."),
      settings::integer("password_max_length", p.password_max_length, 8, 4096,
                        "Longest password accepted, in bytes: bounds the cost of hashing a hostile input (a "
                        "longer one is refused before any hashing)."),
      settings::integer("fullname_max_length", p.fullname_max_length, 1, 4096,
                        "Longest full name of a sign-up, in bytes (control characters are refused)."),
      settings::integer("email_max_length", p.email_max_length, 3, 1024,
                        "Longest e-mail address of a sign-up, in bytes."),
  });
}

namespace {

User new_user(std::string_view username, std::string password_hash, Role role, std::string_view fullname,
              std::string_view email) {
  User user;
  user.id = new_object_id();
  user.username = std::string(username);
  user.password_hash = std::move(password_hash);
  user.fullname = std::string(fullname);
  user.email = std::string(email);
  user.role = role;
  user.version = 0;
  user.created_at = user.updated_at = unix_now();
  return user;
}

// Read-modify-write of one user in one write transaction; bumps __v.
template <class Mutate>
Result<User> modify(Store& store, std::string_view username, Mutate&& mutate) {
  User changed;
  auto done = store.write([&](StoreTxn& txn) -> Result<void> {
    auto user = txn.find_user(username);
    if (!user) return std::unexpected(user.error());
    mutate(*user);
    user->version += 1;
    user->updated_at = unix_now();
    changed = *user;
    return txn.replace_user(*user);
  });
  if (!done) return std::unexpected(done.error());
  return changed;
}

Result<User> insert(Store& store, const User& user) {
  auto done = store.write([&](StoreTxn& txn) { return username_index::insert_user(txn, user); });
  if (!done) {
    if (done.error().code == Errc::conflict) return fail(Errc::conflict, "username already exists");
    return std::unexpected(done.error());
  }
  return user;
}

}  // namespace

Result<User> Accounts::sign_up(const SignupRequest& request) {
  if (auto valid = validate_signup(request, policy_); !valid) return std::unexpected(valid.error());
  // Cheap early answer for a taken name (no hashing); the insert below is
  // what guarantees uniqueness (the store's unique key).
  if (auto existing = username_index::find_user(store_, request.username)) return fail(Errc::conflict, "username already exists");
  else if (existing.error().code != Errc::not_found) return std::unexpected(existing.error());

  auto hash = hasher_.hash(request.password);
  if (!hash) return std::unexpected(hash.error());
  return insert(store_, new_user(request.username, std::move(*hash), Role::user, request.fullname, request.email));
}

Result<User> Accounts::create(std::string_view username, std::string_view password, Role role,
                              std::string_view fullname, std::string_view email) {
  if (auto ok = validate_username(username, policy_); !ok) return std::unexpected(ok.error());
  if (auto ok = validate_password(password, policy_); !ok) return std::unexpected(ok.error());
  if (auto existing = username_index::find_user(store_, username)) return fail(Errc::conflict, "username already exists");
  auto hash = hasher_.hash(password);
  if (!hash) return std::unexpected(hash.error());
  return insert(store_, new_user(username, std::move(*hash), role, fullname, email));
}

Result<User> Accounts::sign_in(const BasicCredentials& credentials, PasswordRefusal* why) const {
  if (why) *why = PasswordRefusal::wrong;
  auto invalid = [] { return fail(Errc::invalid_login, "Invalid Login"); };
  if (credentials.username.size() > policy_.username_max_length ||
      credentials.password.size() > policy_.password_max_length) {
    return invalid();  // never hash an over-long input
  }
  auto user = username_index::find_user(store_, credentials.username);  // "ALICE" signs in as Alice
  if (!user) {
    if (user.error().code != Errc::not_found) return std::unexpected(user.error());
    hasher_.verify_dummy(credentials.password);  // same work as a real check: no user enumeration by timing
    return invalid();
  }
  if (user->password_hash.empty()) {
    hasher_.verify_dummy(credentials.password);
    return invalid();
  }
  if (PasswordHasher::is_bcrypt(user->password_hash) && !PasswordHasher::bcrypt_cost_accepted(user->password_hash)) {
    // Never run (a cost of 31 would burn days of CPU per attempt): the
    // account cannot sign in by password until an operator sets a new
    // hash. The same answer and work as a wrong password; the message is
    // for the log.
    hasher_.verify_dummy(credentials.password);
    if (why) *why = PasswordRefusal::unusable_hash;
    return fail(Errc::invalid_login, std::string(kRefusedStoredHash) + ": bcrypt cost " +
                                         std::to_string(PasswordHasher::bcrypt_cost(user->password_hash)));
  }
  if (!hasher_.verify(user->password_hash, credentials.password)) return invalid();
  if (PasswordHasher::is_bcrypt(user->password_hash)) {
    // An imported bcrypt hash: replace it by argon2id now that the password
    // is known. Unless another sign-in already did (same hash still stored).
    auto upgraded = hasher_.hash(credentials.password);
    if (!upgraded) return std::unexpected(upgraded.error());
    const std::string old_hash = user->password_hash;
    auto changed = modify(store_, user->username, [&](User& stored) {
      if (stored.password_hash == old_hash) stored.password_hash = *upgraded;
    });
    if (changed) return changed;  // a failed upgrade does not fail the sign-in
  }
  return user;
}

namespace {

// The hint reduced to the characters a username may hold, short enough that
// "<base>.<provider>.<n>" stays within the username length limit.
std::string username_base(const ExternalIdentity& identity, std::size_t max_length) {
  const std::size_t room = max_length - std::min<std::size_t>(identity.provider.size() + 6, max_length / 2);
  std::string base;
  for (unsigned char c : identity.username_hint) {
    if (is_username_char(c)) base.push_back(static_cast<char>(c));
    if (base.size() >= room) break;
  }
  return base.empty() ? identity.provider + "_user" : base;
}

// The first candidate username that no account holds.
Result<std::string> free_username(StoreTxn& txn, const ExternalIdentity& identity, std::size_t max_length) {
  const std::string base = username_base(identity, max_length);
  for (int n = 1; n <= 1000; ++n) {
    std::string candidate = base;
    if (n >= 2) candidate += "." + identity.provider;
    if (n >= 3) candidate += "." + std::to_string(n - 1);
    auto taken = username_index::find_user(txn, candidate);
    if (!taken && taken.error().code == Errc::not_found) return candidate;
    if (!taken) return std::unexpected(taken.error());
  }
  return fail(Errc::internal, "no free username for " + base);
}

// The account a link (provider:subject, directory:id) names, when that
// account still lists it; nullopt otherwise. A stale link (its account gone,
// or no longer listing it) is deleted here, so the caller links anew: it must
// never hand someone else's account over.
Result<std::optional<User>> linked_account(StoreTxn& txn, const std::string& link) {
  auto linked_name = txn.find_link(link);
  if (!linked_name) {
    if (linked_name.error().code != Errc::not_found) return std::unexpected(linked_name.error());
    return std::optional<User>();
  }
  auto user = txn.find_user(*linked_name);
  if (user && std::find(user->links.begin(), user->links.end(), link) != user->links.end()) {
    return std::optional<User>(std::move(*user));
  }
  if (!user && user.error().code != Errc::not_found) return std::unexpected(user.error());
  if (auto gone = txn.delete_link(link); !gone) return std::unexpected(gone.error());
  return std::optional<User>();
}

}  // namespace

Result<ExternalSignIn> Accounts::sign_in_external(const ExternalIdentity& identity, bool keep_role, bool create_new) {
  const std::string link = identity.provider + ":" + identity.subject;
  ExternalSignIn outcome;
  auto done = store_.write([&](StoreTxn& txn) -> Result<void> {
    const auto now = unix_now();
    auto linked = linked_account(txn, link);
    if (!linked) return std::unexpected(linked.error());
    if (*linked) {
      User& user = **linked;
      if (!identity.fullname.empty()) user.fullname = identity.fullname;
      if (!identity.email.empty() && identity.email != user.email) {
        user.email = identity.email;
        user.email_verified = false;  // a new address: not verified by us
        // Links mailed to the old address end with it (password_reset.hpp).
        if (auto ended = end_pending_links(txn, user.id); !ended) return ended;
      }
      if (!keep_role) user.role = Role::user;
      user.version += 1;
      user.updated_at = now;
      outcome = ExternalSignIn{user, false};
      return txn.replace_user(user);
    }

    if (!create_new) {
      return fail(Errc::signup_closed, "sign-up is by invitation only: no account is linked to this " +
                                           identity.provider + " identity");
    }
    auto username = free_username(txn, identity, policy_.username_max_length);
    if (!username) return std::unexpected(username.error());
    User user = new_user(*username, "", Role::user, identity.fullname, identity.email);
    user.links.push_back(link);
    if (auto ok = username_index::insert_user(txn, user); !ok) return ok;
    if (auto ok = txn.insert_link(link, user.username); !ok) return ok;
    outcome = ExternalSignIn{std::move(user), true};
    return {};
  });
  if (!done) return std::unexpected(done.error());
  return outcome;
}

Result<User> Accounts::change_password(std::string_view username, std::string_view current, std::string_view next) {
  if (auto stored = store_.find_user(username); stored && is_directory_user(*stored)) {
    return change_directory_password(*stored, current, next);
  }
  auto user = sign_in(BasicCredentials{std::string(username), std::string(current)});
  if (!user) return std::unexpected(user.error());
  if (auto ok = validate_password(next, policy_); !ok) return fail_field("new_password", ok.error().message);
  auto hash = hasher_.hash(next);
  if (!hash) return std::unexpected(hash.error());
  return store_password_change(username, user->id, user->password_hash, std::move(*hash));
}

Result<User> Accounts::change_directory_password(const User& user, std::string_view current, std::string_view next) {
  if (!directory_ || !directory_->enabled() ||
      directory_->settings().password_change != DirectoryPasswordChange::user) {
    return fail(Errc::conflict, std::string(kDirectoryManagesPassword));
  }
  if (current.size() > policy_.password_max_length) return fail(Errc::invalid_login, "an over-long password");
  if (auto ok = validate_password(next, policy_); !ok) return fail_field("new_password", ok.error().message);
  auto changed = directory_->change_password(user.username, directory_id(user), current, next, unix_now());
  if (!changed) return std::unexpected(changed.error());
  // The directory holds the password: the account's write ends its tokens
  // and links as a local change does, with no hash of its own.
  return store_password_change(user.username, user.id, user.password_hash, user.password_hash);
}

Result<User> Accounts::store_password_change(std::string_view username, const std::string& user_id,
                                             const std::string& checked_hash, std::string hash) {
  User changed;
  auto done = store_.write([&](StoreTxn& txn) -> Result<void> {
    auto stored = txn.find_user(username);
    if (!stored) return std::unexpected(stored.error());
    // Changed by someone else since it was checked: make the caller retry.
    if (stored->id != user_id || stored->password_hash != checked_hash) {
      return fail(Errc::conflict, "the account changed meanwhile; try again");
    }
    stored->password_hash = std::move(hash);
    stored->version += 1;
    stored->updated_at = unix_now();
    stored->token_generation += 1;
    // A reset or verification link mailed before ends too (password_reset.hpp).
    if (auto ended = end_pending_links(txn, stored->id); !ended) return ended;
    changed = *stored;
    return txn.replace_user(*stored);
  });
  if (!done) return std::unexpected(done.error());
  return changed;
}

Result<User> Accounts::sign_in_directory(const DirectoryAccount& account) {
  const std::string link = std::string(kDirectoryLinkPrefix) + account.stable_id;
  if (account.stable_id.empty()) return fail(Errc::invalid_login, "a directory entry without a stable id");
  if (auto ok = validate_username(account.username, policy_); !ok) {
    return fail(Errc::invalid_login, "the directory's name \"" + account.username + "\" is not a valid authd username");
  }
  User signed_in;
  auto done = store_.write([&](StoreTxn& txn) -> Result<void> {
    const auto now = unix_now();
    auto linked = linked_account(txn, link);
    if (!linked) return std::unexpected(linked.error());
    if (*linked) {
      User& user = **linked;
      if (!account.fullname.empty()) user.fullname = account.fullname;
      if (account.email != user.email) {
        if (auto ended = end_pending_links(txn, user.id); !ended) return ended;
        user.email = account.email;
      }
      user.email_verified = !user.email.empty();  // the organisation's directory vouches for it
      user.role = account.role;
      user.version += 1;
      user.updated_at = now;  // the guard trusts the stored role for directory_cache_ttl after this
      signed_in = user;
      return txn.replace_user(user);
    }
    if (auto taken = username_index::find_user(txn, account.username)) {
      return fail(Errc::conflict, is_directory_user(*taken)
                                      ? "the name " + account.username + " belongs to another directory entry's "
                                        "account in authd (a reused name): authctl delete --force it first"
                                      : "a local account is named " + account.username);
    } else if (taken.error().code != Errc::not_found) {
      return std::unexpected(taken.error());
    }
    User user = new_user(account.username, "", account.role, account.fullname, account.email);
    user.email_verified = !user.email.empty();
    user.links.push_back(link);
    if (auto ok = username_index::insert_user(txn, user); !ok) return ok;
    if (auto ok = txn.insert_link(link, user.username); !ok) return ok;
    signed_in = std::move(user);
    return {};
  });
  if (!done) return std::unexpected(done.error());
  return signed_in;
}

Result<void> Accounts::follow_directory_role(std::string_view username, std::string_view stable_id, Role role) {
  return store_.write([&](StoreTxn& txn) -> Result<void> {
    auto user = username_index::find_user(txn, username);
    if (!user) return user.error().code == Errc::not_found ? Result<void>() : std::unexpected(user.error());
    if (!is_directory_user(*user) || directory_id(*user) != stable_id || user->role == role) return {};
    user->role = role;
    user->version += 1;
    user->updated_at = unix_now();
    return txn.replace_user(*user);
  });
}

Result<User> Accounts::find(std::string_view username) const { return store_.find_user(username); }

namespace {

// The last admin stays: refused (conflict) when `user` is an admin and no
// other admin exists. Counted inside the caller's write transaction, so the
// check and the write are one: LMDB has one writer at a time, PostgreSQL runs
// it SERIALIZABLE (two demotions of the last two admins read each other's
// row: one fails with a serialization error and runs again, then refused).
Result<void> keep_an_admin(StoreTxn& txn, const User& user, std::string_view what) {
  if (user.role != Role::admin) return {};
  auto admins = txn.list_users(UserQuery{.role = Role::admin, .contains = {}, .offset = 0, .limit = 2});
  if (!admins) return std::unexpected(admins.error());
  if (admins->total <= 1) {
    return fail(Errc::conflict, "'" + user.username + "' is the last admin and cannot be " + std::string(what) +
                                    ": make another user admin first");
  }
  return {};
}

}  // namespace

Result<User> Accounts::set_role(std::string_view username, Role role, bool force,
                                std::vector<std::string>* revoked_invitations) {
  User changed;
  std::vector<std::string> revoked;
  auto done = store_.write([&](StoreTxn& txn) -> Result<void> {
    revoked.clear();  // a backend may run this again
    auto user = txn.find_user(username);
    if (!user) return std::unexpected(user.error());
    if (is_directory_user(*user)) return fail(Errc::conflict, std::string(kDirectoryManagesRole));
    if (role != Role::admin && !force) {
      if (auto ok = keep_an_admin(txn, *user, "demoted"); !ok) return ok;
    }
    if (user->role == Role::admin && role != Role::admin) {
      // An admin no more: the invitations they made end with their power.
      auto ended = Invitations::revoke_made_by(txn, *user);
      if (!ended) return std::unexpected(ended.error());
      revoked = std::move(*ended);
    }
    user->role = role;
    user->version += 1;
    user->updated_at = unix_now();
    changed = *user;
    return txn.replace_user(*user);
  });
  if (!done) return std::unexpected(done.error());
  if (revoked_invitations) *revoked_invitations = std::move(revoked);
  return changed;
}

Result<void> Accounts::remove(std::string_view username, bool force, std::vector<std::string>* revoked_invitations) {
  std::vector<std::string> revoked;
  auto done = store_.write([&](StoreTxn& txn) -> Result<void> {
    revoked.clear();  // a backend may run this again
    auto user = txn.find_user(username);
    if (!user) return std::unexpected(user.error());
    if (is_directory_user(*user) && !force) return fail(Errc::conflict, std::string(kDirectoryManagesAccount));
    if (!force) {
      if (auto ok = keep_an_admin(txn, *user, "deleted"); !ok) return ok;
    }
    for (const auto& link : user->links) {
      if (auto ok = txn.delete_link(link); !ok && ok.error().code != Errc::not_found) return ok;
    }
    // Its second factors and pending mailed links go too, in the same transaction.
    if (auto ok = SecondFactors::erase(txn, user->id); !ok) return ok;
    if (auto ok = end_pending_links(txn, user->id); !ok) return ok;
    // And the invitations it made (an admin's): they were only as good as it.
    auto ended = Invitations::revoke_made_by(txn, *user);
    if (!ended) return std::unexpected(ended.error());
    revoked = std::move(*ended);
    return username_index::delete_user(txn, username);
  });
  if (done && revoked_invitations) *revoked_invitations = std::move(revoked);
  return done;
}

Result<UserPage> Accounts::list(const UserQuery& query) const {
  return read_value(store_, [&](StoreTxn& txn) { return txn.list_users(query); });
}

}  // namespace authd
