// Sign-up and sign-in as use cases, independent of HTTP.
#pragma once

#include <cstddef>
#include <string>

#include "authd/authorization.hpp"
#include "authd/error.hpp"
#include "authd/json.hpp"
#include "authd/password.hpp"
#include "authd/store.hpp"
#include "authd/user.hpp"

namespace authd {

struct CredentialPolicy {
  std::size_t username_max_length = 64;     // characters: A-Z a-z 0-9 . _ @ + -
  std::size_t password_min_length = 1;      // bytes
  std::size_t password_max_length = 1024;   // bytes: checked before any hashing
  std::size_t fullname_max_length = 256;
  std::size_t email_max_length = 254;
};

struct SignupRequest {
  std::string username;
  std::string password;
  std::string fullname;
  std::string email;
};

// Reads {username,password,fullname,email} from a parsed JSON body. Every
// field is required and must be a string. Error: bad_request naming the field
// ("username is required", "email must be a string", ...).
Result<SignupRequest> signup_request_from_json(const Json& body);

// Checks lengths and formats without hashing anything. Error: bad_request
// naming the field.
Result<void> validate_signup(const SignupRequest& request, const CredentialPolicy& policy);
Result<void> validate_username(std::string_view username, const CredentialPolicy& policy);
Result<void> validate_password(std::string_view password, const CredentialPolicy& policy);

class Accounts {
 public:
  Accounts(UserStore& users, const PasswordHasher& hasher, CredentialPolicy policy)
      : users_(users), hasher_(hasher), policy_(policy) {}

  // Validates, hashes, creates with role user. Errors: bad_request,
  // conflict (username taken), storage_full, internal.
  Result<User> sign_up(const SignupRequest& request);

  // Error: invalid_login for an unknown user, a wrong password, an account
  // without a password, or an over-long input; the unknown-user path spends
  // the same hashing work as a real check.
  Result<User> sign_in(const BasicCredentials& credentials) const;

  const CredentialPolicy& policy() const noexcept { return policy_; }

 private:
  UserStore& users_;
  const PasswordHasher& hasher_;
  CredentialPolicy policy_;
};

}  // namespace authd
