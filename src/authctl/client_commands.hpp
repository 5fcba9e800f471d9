// `authctl client ...`: the OpenID Connect clients (lib/oidc/clients.cpp).
#pragma once

#include <string>
#include <vector>

#include "authd/core.hpp"
#include "authd/user_admin.hpp"

namespace authd::authctl {

// args: everything after `client`. Returns the exit status (2: usage).
int client_command(Core& core, const Actor& actor, const std::vector<std::string>& args);

extern const char* const kClientUsage;

}  // namespace authd::authctl
