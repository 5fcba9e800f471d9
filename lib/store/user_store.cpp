#include "authd/clock.hpp"
#include "store/lmdb_txn.hpp"

namespace authd {
namespace {

std::string serialize(const User& user) {
  Json doc = Json::object();
  doc.set("_id", Json::string(user.id))
      .set("username", Json::string(user.username))
      .set("password", Json::string(user.password_hash))
      .set("fullname", Json::string(user.fullname))
      .set("email", Json::string(user.email))
      .set("role", Json::string(to_string(user.role)))
      .set("__v", Json::integer(user.version))
      .set("created_at", Json::integer(user.created_at))
      .set("updated_at", Json::integer(user.updated_at));
  return doc.dump();
}

Result<User> deserialize(std::string_view bytes) {
  auto doc = Json::parse(bytes);
  if (!doc || !doc->is_object()) return fail(Errc::internal, "corrupt user record");
  const auto role = parse_role(doc->get_string("role").value_or(""));
  const auto id = doc->get_string("_id");
  const auto username = doc->get_string("username");
  if (!role || !id || !username) return fail(Errc::internal, "corrupt user record");
  User user;
  user.id = std::string(*id);
  user.username = std::string(*username);
  user.password_hash = std::string(doc->get_string("password").value_or(""));
  user.fullname = std::string(doc->get_string("fullname").value_or(""));
  user.email = std::string(doc->get_string("email").value_or(""));
  user.role = *role;
  user.version = doc->get_integer("__v").value_or(0);
  user.created_at = doc->get_integer("created_at").value_or(0);
  user.updated_at = doc->get_integer("updated_at").value_or(0);
  return user;
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
  if (auto ok = txn->del(db_.impl().users, username); !ok) {
    if (ok.error().code == Errc::not_found) return fail(Errc::not_found, "no such user");
    return ok;
  }
  return txn->commit();
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
