#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "authd/roles.hpp"

namespace authd {

// The characters a username may hold: A-Z a-z 0-9 . _ @ + -
inline bool is_username_char(unsigned char c) noexcept {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
         c == '@' || c == '+' || c == '-';
}

// A user account as stored. `acl` is always empty in this version (the spec
// shows it as an empty array) and is therefore not a member.
struct User {
  std::string id;             // _id: 24 lower-case hex characters
  std::string username;
  std::string password_hash;  // PHC string; empty for accounts without a password
  std::string fullname;
  std::string email;
  bool email_verified = false;
  Role role = Role::user;
  std::int64_t version = 0;   // __v: 0 when created, +1 on every update
  std::int64_t created_at = 0;
  std::int64_t updated_at = 0;
  std::vector<std::string> links;  // third-party identities ("provider:subject") linked to it
  // Token lifecycle (see authd/revocation.hpp, lib/accounts/). Carried in the
  // record the guard loads anyway, so the checks cost no extra store read.
  std::int64_t token_generation = 0;  // tokens carry it as `gen`; +1 ends every token of the user
  std::int64_t last_revocation = 0;   // Unix time of the latest single-token sign-out (0 = never)
};

// A directory user (docs/directory.md) is linked as "directory:<stable id>"
// (entryUUID, objectGUID in hex): signs in against the directory, has no
// password in authd, and its role follows the directory's groups.
inline constexpr std::string_view kDirectoryLinkPrefix = "directory:";

// The stable id of `user`'s directory entry; "" for a local account.
inline std::string_view directory_id(const User& user) noexcept {
  for (const auto& link : user.links) {
    if (std::string_view(link).starts_with(kDirectoryLinkPrefix)) {
      return std::string_view(link).substr(kDirectoryLinkPrefix.size());
    }
  }
  return {};
}
inline bool is_directory_user(const User& user) noexcept { return !directory_id(user).empty(); }

// Who a third-party identity provider says the user is.
struct ExternalIdentity {
  std::string provider;
  std::string subject;        // stable id at the provider (sub, or GitHub's numeric id)
  std::string username_hint;  // preferred_username / login / email
  std::string fullname;
  std::string email;
};

// The outcome of a third-party sign-in at the store.
struct ExternalSignIn {
  User user;
  bool created = false;
};

}  // namespace authd
