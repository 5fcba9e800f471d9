// Everything a request needs, built once at start from the validated Config.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "authd/accounts.hpp"
#include "authd/authenticator.hpp"
#include "authd/config.hpp"
#include "authd/guard.hpp"
#include "authd/oauth.hpp"
#include "authd/password.hpp"
#include "authd/store.hpp"
#include "authd/throttle.hpp"
#include "authd/token.hpp"

namespace authd {

struct App {
  std::unique_ptr<Authenticator> auth;  // owns the database, users, key and guard below
  Config config;
  UserStore* users = nullptr;
  const TokenService* tokens = nullptr;
  const Guard* guard = nullptr;
  std::unique_ptr<RecordStore> records;
  std::unique_ptr<PasswordHasher> hasher;
  std::unique_ptr<Accounts> accounts;
  std::unique_ptr<SigninThrottle> throttle;
  std::map<std::string, std::unique_ptr<OAuthClient>, std::less<>> oauth_clients;  // by provider name

  // Opens the store, loads (or creates) the signing key. Errors: io, config —
  // the caller prints the one-line reason and refuses to start.
  static Result<std::unique_ptr<App>> create(Config config);
};

}  // namespace authd
