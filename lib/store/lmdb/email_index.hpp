// Internal to lib/store/lmdb/: the table users_by_email, a secondary index of
// the users by address. The store writes it in the same transaction as the
// user (insert_user, replace_user, delete_user), so finding the accounts of
// an address (list_users with UserQuery::email) reads only that address's
// entries instead of every user.
//
//   key   the address in ASCII lower case, cut to kMaxKeyBytes (longer
//         addresses with one beginning share a key: readers compare the
//         stored user's address, so a shared key only costs a read)
//   value the username (MDB_DUPSORT: the users of one address in username
//         byte order)
//
// A user without an address has no entry.
#pragma once

#include <string>
#include <string_view>

#include "lmdb_txn.hpp"

namespace authd::lmdb::email_index {

inline constexpr std::size_t kMaxKeyBytes = 255;  // with a username (<= 256) within LMDB's 511

// The index key of `email` ("" for no address: not indexed).
std::string key_of(std::string_view email);

// The entry of (email, username): added, removed, or moved from one address
// to another. Errors only as the transaction's own (a failed LMDB write
// marks the whole transaction failed, so a half-made change never commits).
Result<void> add(Txn& txn, MDB_dbi index, std::string_view email, std::string_view username);
Result<void> remove(Txn& txn, MDB_dbi index, std::string_view email, std::string_view username);
Result<void> move(Txn& txn, MDB_dbi index, std::string_view from, std::string_view to, std::string_view username);

// Opens the index in `txn` (a write transaction). A store made before the
// index existed has no such table: it is created and filled from `users`
// here, once, in the same transaction (storage_full when the map is too
// small for it: the caller grows the map and tries again).
Result<MDB_dbi> open(Txn& txn, MDB_dbi users);

}  // namespace authd::lmdb::email_index
