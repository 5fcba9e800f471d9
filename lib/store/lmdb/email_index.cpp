#include "email_index.hpp"

#include <optional>

#include "user_codec.hpp"

namespace authd::lmdb::email_index {

constexpr const char* kTable = "users_by_email";

std::string key_of(std::string_view email) {
  std::string key(email.substr(0, kMaxKeyBytes));
  for (char& c : key) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return key;
}

Result<void> add(Txn& txn, MDB_dbi index, std::string_view email, std::string_view username) {
  if (email.empty()) return {};
  auto put = txn.put(index, key_of(email), username, MDB_NODUPDATA);
  if (!put && put.error().code == Errc::conflict) return {};  // already there
  return put;
}

Result<void> remove(Txn& txn, MDB_dbi index, std::string_view email, std::string_view username) {
  if (email.empty()) return {};
  auto deleted = txn.del_pair(index, key_of(email), username);
  if (!deleted && deleted.error().code == Errc::not_found) return {};  // already gone
  return deleted;
}

Result<void> move(Txn& txn, MDB_dbi index, std::string_view from, std::string_view to, std::string_view username) {
  if (key_of(from) == key_of(to)) return {};
  if (auto removed = remove(txn, index, from, username); !removed) return removed;
  return add(txn, index, to, username);
}

Result<MDB_dbi> open(Txn& txn, MDB_dbi users) {
  MDB_dbi index = 0;
  int rc = mdb_dbi_open(txn.get(), kTable, MDB_DUPSORT, &index);
  if (rc == 0) return index;
  if (rc != MDB_NOTFOUND) return std::unexpected(lmdb_error(rc, "email index"));
  // A store from before the index: build it from every user, once.
  if (rc = mdb_dbi_open(txn.get(), kTable, MDB_DUPSORT | MDB_CREATE, &index); rc != 0) {
    return std::unexpected(lmdb_error(rc, "email index"));
  }
  std::optional<Error> failed;
  auto scanned = txn.for_each(users, [&](std::string_view username, std::string_view bytes) {
    if (failed) return;
    auto user = store_detail::decode_user(bytes);
    if (!user) return;  // a corrupt record stays unreadable; it has no address to find
    if (auto added = add(txn, index, user->email, username); !added) failed = added.error();
  });
  if (!scanned) return std::unexpected(scanned.error());
  if (failed) return std::unexpected(*failed);
  return index;
}

}  // namespace authd::lmdb::email_index
