// What a password sign-in presents: a username and a password, however they
// came (an Authorization: Basic header, authd/authorization.hpp, or a form).
#pragma once

#include <string>

namespace authd {

struct BasicCredentials {
  std::string username;
  std::string password;
};

}  // namespace authd
