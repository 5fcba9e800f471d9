#pragma once

#include <cstdint>
#include <string>

#include "authd/roles.hpp"

namespace authd {

// A user account as stored. `acl` is always empty in this version (the spec
// shows it as an empty array) and is therefore not a member.
struct User {
  std::string id;             // _id: 24 lower-case hex characters
  std::string username;
  std::string password_hash;  // PHC string; empty for accounts without a password
  std::string fullname;
  std::string email;
  Role role = Role::user;
  std::int64_t version = 0;   // __v: 0 when created, +1 on every update
  std::int64_t created_at = 0;
  std::int64_t updated_at = 0;
};

// What sign-up (or authctl add) supplies; the store assigns id and version.
struct NewUser {
  std::string username;
  std::string password_hash;
  std::string fullname;
  std::string email;
  Role role = Role::user;
};

}  // namespace authd
