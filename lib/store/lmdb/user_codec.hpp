// Internal to lib/store/: the stored form of a User.
//
// A compact binary record (the guard decodes one on every protected request,
// so it must cost next to nothing): 'U', format version 2, then
//   id, username, password_hash, fullname, email    u32 length (LE) + bytes each
//   role                                           u8
//   version, created_at, updated_at                 i64 (LE) each
//   links                                          u32 count, then length + bytes each
//   token_generation, last_revocation               i64 (LE) each (format 2 only;
//                                                   format 1 records read as 0, 0)
// Every read is bounds-checked; anything malformed is "corrupt", never UB.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "authd/user.hpp"

namespace authd::store_detail {

std::string encode_user(const User& user);
std::optional<User> decode_user(std::string_view bytes);

}  // namespace authd::store_detail
