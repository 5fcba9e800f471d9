// Usernames are unique under a canonical form, and sign-in
// finds an account by it, while the account keeps (and every response shows)
// the name as registered. The allowed characters are ASCII only
// (is_username_char), so the canonical form is ASCII lower case; Unicode
// normalisation (NFC) has nothing to do until other characters are allowed.
//
// The index lives in the store's entries, namespace "username": canonical
// form -> registered name. Every write that adds or removes a user goes
// through claim/release in the same transaction, so the index and the users
// never disagree; stores from before the index get it built once at start
// (by the Core: hence a public header of lib/accounts/).
#pragma once

#include <string>
#include <string_view>

#include "authd/error.hpp"
#include "authd/store.hpp"

namespace authd::username_index {

std::string canonical(std::string_view username);

// Inserts `user` unless its canonical form is taken. Error: conflict.
Result<void> insert_user(StoreTxn& txn, const User& user);
// Deletes the user and its index entry. Error: not_found.
Result<void> delete_user(StoreTxn& txn, std::string_view username);

// The account a typed name means: an exact match, else the account whose
// name has the same canonical form. Error: not_found.
Result<User> find_user(StoreTxn& txn, std::string_view name);
// The same outside a transaction, through the store's fast lookup first.
Result<User> find_user(Store& store, std::string_view name);

// Builds the index for users stored before it existed (once per store).
Result<void> build_if_missing(Store& store);

}  // namespace authd::username_index
