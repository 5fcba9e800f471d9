// Internal to lib/store/postgres/: a User as a row of table `users`.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "authd/user.hpp"
#include "connection.hpp"

namespace authd::pg {

// The column list every user query selects, in the order decode_user reads.
inline constexpr const char* kUserColumns =
    "username, id, password_hash, fullname, email, role, version, created_at, updated_at, links, "
    "token_generation, last_revocation";

// Row `row` of a result selecting kUserColumns (text format). nullopt when a
// value is not what the schema allows (an unknown role, a malformed array).
std::optional<User> decode_user(const PGresult* result, int row);

// The parameters $1..$12 in kUserColumns order. `links_literal` must outlive
// the parameters: it holds the text[] literal of user.links.
std::vector<Param> user_params(const User& user, std::string& links_literal);

// PostgreSQL's one-dimensional array literal: {"a","b\"c"} and back.
std::string encode_text_array(const std::vector<std::string>& items);
std::optional<std::vector<std::string>> decode_text_array(std::string_view literal);

}  // namespace authd::pg
