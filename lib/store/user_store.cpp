#include <algorithm>
#include <cctype>

#include "authd/clock.hpp"
#include "store/lmdb_txn.hpp"
#include "store/user_codec.hpp"

namespace authd {
namespace {

std::string serialize(const User& user) { return store_detail::encode_user(user); }

Result<User> deserialize(std::string_view bytes) {
  auto user = store_detail::decode_user(bytes);
  if (!user) return fail(Errc::internal, "corrupt user record");
  return std::move(*user);
}

Result<User> find_in(const Txn& txn, MDB_dbi dbi, std::string_view username) {
  auto bytes = txn.get(dbi, username);
  if (!bytes) {
    if (bytes.error().code == Errc::not_found) return fail(Errc::not_found, "no such user");
    return std::unexpected(bytes.error());
  }
  return deserialize(*bytes);
}

// Read-modify-write of one user inside one write transaction.
template <class Mutate>
Result<User> modify(Database& db, std::string_view username, Mutate&& mutate) {
  auto txn = Txn::begin(db.impl().env, true);
  if (!txn) return std::unexpected(txn.error());
  auto user = find_in(*txn, db.impl().users, username);
  if (!user) return std::unexpected(user.error());
  if (auto ok = mutate(*user); !ok) return std::unexpected(ok.error());
  user->version += 1;
  user->updated_at = unix_now();
  if (auto ok = txn->put(db.impl().users, username, serialize(*user)); !ok) return std::unexpected(ok.error());
  if (auto ok = txn->commit(); !ok) return std::unexpected(ok.error());
  return user;
}

}  // namespace

Result<User> UserStore::create(const NewUser& fresh) {
  User user;
  user.id = new_object_id();
  user.username = fresh.username;
  user.password_hash = fresh.password_hash;
  user.fullname = fresh.fullname;
  user.email = fresh.email;
  user.role = fresh.role;
  user.version = 0;
  user.created_at = user.updated_at = unix_now();

  auto txn = Txn::begin(db_.impl().env, true);
  if (!txn) return std::unexpected(txn.error());
  // MDB_NOOVERWRITE makes the uniqueness check and the insert one step of
  // one write transaction: two sign-ups of one name cannot both succeed.
  if (auto ok = txn->put(db_.impl().users, user.username, serialize(user), MDB_NOOVERWRITE); !ok) {
    if (ok.error().code == Errc::conflict) return fail(Errc::conflict, "username already exists");
    return std::unexpected(ok.error());
  }
  if (auto ok = txn->commit(); !ok) return std::unexpected(ok.error());
  return user;
}

Result<User> UserStore::find(std::string_view username) const {
  auto txn = Txn::begin(db_.impl().env, false);
  if (!txn) return std::unexpected(txn.error());
  return find_in(*txn, db_.impl().users, username);
}

Result<User> UserStore::set_role(std::string_view username, Role role) {
  return modify(db_, username, [role](User& user) -> Result<void> {
    user.role = role;
    return {};
  });
}

Result<User> UserStore::update(const User& changed) {
  return modify(db_, changed.username, [&changed](User& user) -> Result<void> {
    if (user.version != changed.version || user.id != changed.id) {
      return fail(Errc::conflict, "the user was changed concurrently");
    }
    const auto version = user.version;
    const auto created = user.created_at;
    user = changed;
    user.version = version;
    user.created_at = created;
    return {};
  });
}

Result<void> UserStore::remove(std::string_view username) {
  auto txn = Txn::begin(db_.impl().env, true);
  if (!txn) return std::unexpected(txn.error());
  auto user = find_in(*txn, db_.impl().users, username);
  if (!user) return std::unexpected(user.error());
  for (const auto& link : user->links) {
    if (auto ok = txn->del(db_.impl().links, link); !ok && ok.error().code != Errc::not_found) return ok;
  }
  if (auto ok = txn->del(db_.impl().users, username); !ok) return ok;
  return txn->commit();
}

namespace {

constexpr std::size_t kUsernameMaxLength = 64;  // the default username_max_length

// The hint reduced to the characters a username may hold, short enough that
// "<base>.<provider>.<n>" stays within the username length limit.
std::string username_base(const ExternalIdentity& identity) {
  const std::size_t room = kUsernameMaxLength - std::min<std::size_t>(identity.provider.size() + 6, 32);
  std::string base;
  for (unsigned char c : identity.username_hint) {
    if (is_username_char(c)) base.push_back(static_cast<char>(c));
    if (base.size() == room) break;
  }
  return base.empty() ? identity.provider + "_user" : base;
}

// The first candidate username that no account holds.
Result<std::string> free_username(const Txn& txn, MDB_dbi users, const ExternalIdentity& identity) {
  const std::string base = username_base(identity);
  for (int n = 1; n <= 1000; ++n) {
    std::string candidate = base;
    if (n >= 2) candidate += "." + identity.provider;
    if (n >= 3) candidate += "." + std::to_string(n - 1);
    auto taken = txn.get(users, candidate);
    if (!taken && taken.error().code == Errc::not_found) return candidate;
    if (!taken) return std::unexpected(taken.error());
  }
  return fail(Errc::internal, "no free username for " + base);
}

}  // namespace

Result<ExternalSignIn> UserStore::sign_in_external(const ExternalIdentity& identity, bool keep_role) {
  const std::string link = identity.provider + ":" + identity.subject;
  auto txn = Txn::begin(db_.impl().env, true);
  if (!txn) return std::unexpected(txn.error());
  const auto& tables = db_.impl();
  const auto now = unix_now();

  // An existing link counts only if its account still lists it (a stale link
  // must never hand someone else's account over).
  if (auto linked_name = txn->get(tables.links, link)) {
    auto user = find_in(*txn, tables.users, *linked_name);
    if (user && std::find(user->links.begin(), user->links.end(), link) != user->links.end()) {
      if (!identity.fullname.empty()) user->fullname = identity.fullname;
      if (!identity.email.empty()) user->email = identity.email;
      if (!keep_role) user->role = Role::user;
      user->version += 1;
      user->updated_at = now;
      if (auto ok = txn->put(tables.users, user->username, serialize(*user)); !ok) return std::unexpected(ok.error());
      if (auto ok = txn->commit(); !ok) return std::unexpected(ok.error());
      return ExternalSignIn{std::move(*user), false};
    }
    if (!user && user.error().code != Errc::not_found) return std::unexpected(user.error());
  } else if (linked_name.error().code != Errc::not_found) {
    return std::unexpected(linked_name.error());
  }

  auto username = free_username(*txn, tables.users, identity);
  if (!username) return std::unexpected(username.error());
  User user;
  user.id = new_object_id();
  user.username = std::move(*username);
  user.fullname = identity.fullname;
  user.email = identity.email;
  user.role = Role::user;
  user.created_at = user.updated_at = now;
  user.links.push_back(link);
  if (auto ok = txn->put(tables.users, user.username, serialize(user), MDB_NOOVERWRITE); !ok) {
    return std::unexpected(ok.error());
  }
  if (auto ok = txn->put(tables.links, link, user.username); !ok) return std::unexpected(ok.error());
  if (auto ok = txn->commit(); !ok) return std::unexpected(ok.error());
  return ExternalSignIn{std::move(user), true};
}

Result<std::vector<User>> UserStore::list() const {
  auto txn = Txn::begin(db_.impl().env, false);
  if (!txn) return std::unexpected(txn.error());
  std::vector<User> users;
  bool corrupt = false;
  auto scanned = txn->for_each(db_.impl().users, [&](std::string_view, std::string_view value) {
    if (auto user = deserialize(value)) users.push_back(std::move(*user));
    else corrupt = true;
  });
  if (!scanned) return std::unexpected(scanned.error());
  if (corrupt) return fail(Errc::internal, "corrupt user record");
  return users;
}

}  // namespace authd
