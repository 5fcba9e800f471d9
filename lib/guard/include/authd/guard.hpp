// The guard of a protected route: bearer token check, then re-authentication
// (the user is loaded, so a role change or deletion takes effect on the next
// call), then an optional capability check. Plain C++: link it into any server.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "authd/directory.hpp"
#include "authd/error.hpp"
#include "authd/revocation.hpp"
#include "authd/roles.hpp"
#include "authd/store.hpp"
#include "authd/token.hpp"
#include "authd/user.hpp"

namespace authd {

// Who a request comes from: its user as just read from the store, and the
// claims of the token it showed. Both are shared, read-only, with the caches
// they came from (the store's user cache, the verified-token cache: no copy
// per request); never null in a Principal the guard gives.
struct Principal {
  std::shared_ptr<const User> shared_user;
  std::shared_ptr<const TokenClaims> token_claims;
  const User& user() const noexcept { return *shared_user; }
  const TokenClaims& claims() const noexcept { return *token_claims; }
};

class Guard {
 public:
  Guard(const TokenService& tokens, Store& store) : tokens_(tokens), store_(store), revocation_(store) {}

  // Tokens of these roles must show a second factor (amr "otp" or "hwk"),
  // else check() answers mfa_required (mfa_required_roles).
  void require_second_factor(std::vector<Role> roles) { second_factor_roles_ = std::move(roles); }
  // Directory users (user.hpp's is_directory_user) are re-authenticated
  // against `directory`'s cached state too (DirectoryUsers::role_now; an
  // event loop never waits, see current_role): gone, locked or in no mapped
  // group is invalid_token, a role the groups changed counts at once, and
  // with directory users off they are refused. Without this call they are
  // refused as well.
  void use_directory(const DirectoryUsers* directory) noexcept { directory_ = directory; }

  // Service clients (the client_credentials grant): a token whose subject
  // is "client:<id>" (kServiceSubjectPrefix) stands for the client `lookup`
  // gives, read on every request like a user, so that a removed client or a
  // changed role takes effect on the next one. `lookup` takes the subject;
  // its error invalid_token refuses the token. Without a lookup such tokens
  // are refused.
  using ServiceLookup = std::function<Result<std::shared_ptr<const User>>(std::string_view subject)>;
  void resolve_service_clients(ServiceLookup lookup) { service_lookup_ = std::move(lookup); }

  // `authorization` is the raw Authorization header value ("" when absent).
  // Errors: no_credentials (no bearer credentials), malformed_credentials (malformed
  // header), invalid_token (bad/expired token, or its user is gone or was
  // re-created, the token was signed out or ended by a generation change, a
  // directory user the directory no longer lets in),
  // not_permitted (role lacks `required`), internal.
  // mfa_required: the role needs a second factor the token does not show.
  // unavailable: a directory user's state cannot be checked now.
  Result<Principal> check(std::string_view authorization, std::optional<Capability> required,
                          std::int64_t now) const;

  // As check() without a capability and without the second-factor policy:
  // for the routes a user of such a role needs to enrol a factor (/me/mfa/*,
  // GET /me, /signout), which hand out nothing else.
  Result<Principal> check_for_enrolment(std::string_view authorization, std::int64_t now) const;

  // A token issued to an OpenID client (kClientAccessKind: aud = its
  // client_id claim alone; check() and check_for_enrolment() refuse those):
  // for /userinfo. Errors: as check().
  Result<Principal> check_client_token(std::string_view authorization, std::int64_t now) const;

  // The capability step alone: the role has it and, for a service client's
  // token, so does its scope. Error: not_permitted.
  static Result<void> authorize(const Principal& principal, Capability required);

  // The role `user` (as just read from the store) has now: a local user's
  // stored one; a directory user's as the directory last gave it (the same
  // re-authentication as a token's). An account this process has not checked
  // yet and not signed in recently: with a store that waits on the network,
  // refused on an event loop (MemoryOnly, the request moves to a store
  // thread) and awaited elsewhere (DirectoryUsers::await_role, bounded);
  // otherwise unavailable at once. For what hands out
  // tokens or answers for a user without an access token: a refresh, an
  // introspected refresh token. Errors: invalid_token (a directory user gone,
  // locked or disabled, in no group that gives a role, or directory users
  // off), unavailable (a directory user's state cannot be checked now).
  Result<Role> current_role(const User& user, std::int64_t now) const;

 private:
  // `kind`: kAccessTokenType (a session) or kClientAccessKind.
  Result<Principal> authenticate(std::string_view authorization, std::int64_t now,
                                 std::string_view kind = kAccessTokenType) const;

  // A service client's token: its client, as it is now.
  Result<Principal> authenticate_service(std::shared_ptr<const TokenClaims> claims) const;

  std::vector<Role> second_factor_roles_;
  ServiceLookup service_lookup_;
  const DirectoryUsers* directory_ = nullptr;
  const TokenService& tokens_;
  Store& store_;
  TokenRevocation revocation_;
};

}  // namespace authd
