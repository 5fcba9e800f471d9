#include "authd/guard.hpp"

#include <algorithm>

#include "authd/authorization.hpp"
#include "authd/mfa.hpp"

namespace authd {

Result<Principal> Guard::authenticate(std::string_view authorization, std::int64_t now, std::string_view kind) const {
  auto token = bearer_token(authorization);
  if (!token) return std::unexpected(token.error());
  // The b64token syntax (a malformed token is a 400, not a 401) is checked
  // for a token the cache does not recognise: a 300-byte scan on every
  // request otherwise, for a token that passed it when first verified.
  auto verified = tokens_.verify_shared(*token, kind, now, check_b64token);
  if (!verified) return std::unexpected(verified.error());
  const auto& claims = *verified;

  if (is_service_subject(claims->subject)) {
    if (kind != kAccessTokenType) return fail(Errc::invalid_token, "a service client's token is no client token");
    return authenticate_service(std::move(*verified));
  }
  if (claims->username.empty()) return fail(Errc::invalid_token, "the token names no user");
  // Re-authenticate: the account must still exist and be the one the token
  // was issued to (a deleted and re-created name has a new _id).
  auto user = store_.find_user_shared(claims->username);
  if (!user) {
    if (user.error().code == Errc::not_found) return fail(Errc::invalid_token, "the token's user no longer exists");
    return std::unexpected(user.error());
  }
  if ((*user)->id != claims->subject) return fail(Errc::invalid_token, "the token's user was replaced");
  // Signed out or ended everywhere? Judged from the record just loaded (a
  // second read only for a token older than the user's last sign-out).
  if (auto alive = revocation_.check(**user, *claims); !alive) return std::unexpected(alive.error());
  // A directory user: as the directory has them now.
  auto role = current_role(**user, now);
  if (!role) return std::unexpected(role.error());
  if (*role != (*user)->role) {
    auto current = std::make_shared<User>(**user);
    current->role = *role;
    *user = std::move(current);
  }
  return Principal{std::move(*user), std::move(*verified)};
}

Result<Role> Guard::current_role(const User& user, std::int64_t now) const {
  const auto stable_id = directory_id(user);
  if (stable_id.empty()) return user.role;
  // Cached, checked every directory_cache_ttl / 2 off this thread.
  if (!directory_ || !directory_->enabled()) return fail(Errc::invalid_token, "directory users are off");
  auto role = directory_->role_now(user.username, stable_id, user.updated_at, now);
  if (!role && role.error().code == Errc::unavailable && store_.waits_on_network()) {
    // Not checked by this process yet (another node's sign-in): an event loop
    // answering from memory hands the request to a store thread (MemoryOnly),
    // which waits for the check rather than answer 503. With a store that
    // never waits (LMDB) the event loop answers: 503 with Retry-After.
    if (MemoryOnly::refuse_wait()) return std::unexpected(MemoryOnly::refusal());
    role = directory_->await_role(user.username, stable_id, user.updated_at, now);
  }
  if (!role) return std::unexpected(role.error());
  return role->value_or(user.role);
}

Result<Principal> Guard::authenticate_service(std::shared_ptr<const TokenClaims> claims) const {
  const auto client_id = claims->extra.find(kClientIdClaim);
  if (!service_lookup_ || claims->username != claims->subject || client_id == claims->extra.end() ||
      claims->subject != std::string(kServiceSubjectPrefix) + client_id->second) {
    return fail(Errc::invalid_token, "not a service client's token");
  }
  // Re-authenticate: the client must still be registered with its grant;
  // its role is the one it has now.
  auto client = service_lookup_(claims->subject);
  if (!client) return std::unexpected(client.error());
  // Revoked one by one (POST /revoke)? Its principal makes the check read the list.
  if (auto alive = revocation_.check(**client, *claims); !alive) return std::unexpected(alive.error());
  return Principal{std::move(*client), std::move(claims)};
}

// A token authd handed to an OpenID client is for the client's use of
// /userinfo: it never stands in for the user at authd's own routes, whatever
// the user's role. Today's has the client as its only audience and fails the
// session's check already; one issued before issue 41 (aud [token_audience,
// client]) is known by its client_id claim.
static Result<void> refuse_client_token(const Principal& principal) {
  // A service client's own token names itself, and is for authd's routes.
  if (principal.claims().extra.contains(kClientIdClaim) && !is_service_subject(principal.claims().subject)) {
    return fail(Errc::invalid_token, "a token issued to an OpenID client is for /userinfo only");
  }
  return {};
}

Result<Principal> Guard::check_client_token(std::string_view authorization, std::int64_t now) const {
  // Verified as a client's: aud = its client_id claim, never token_audience.
  return authenticate(authorization, now, kClientAccessKind);
}

Result<Principal> Guard::check(std::string_view authorization, std::optional<Capability> required,
                               std::int64_t now) const {
  auto principal = authenticate(authorization, now);
  if (!principal) return principal;
  if (auto own = refuse_client_token(*principal); !own) return std::unexpected(own.error());
  // The role is judged as it is now (re-authenticated), so a promotion to a
  // role that needs a second factor takes effect on the next request. A
  // service client has no second factor to show: the policy is for people
  // (its credential is a random secret or a private key, never a password).
  if (!is_service_subject(principal->claims().subject) && std::ranges::find(second_factor_roles_, principal->user().role) != second_factor_roles_.end()) {
    const auto amr = principal->claims().extra.find(kAmrClaim);
    if (amr == principal->claims().extra.end() || !amr_has_second_factor(amr->second)) {
      Error refused(Errc::mfa_required, "role " + std::string(to_string(principal->user().role)) +
                                            " needs a second factor: enrol at /me/mfa, then sign in with it");
      refused.username = principal->user().username;  // the audit line names whose token was refused
      return std::unexpected(std::move(refused));
    }
  }
  if (required) {
    if (auto allowed = authorize(*principal, *required); !allowed) return std::unexpected(allowed.error());
  }
  return principal;
}

Result<Principal> Guard::check_for_enrolment(std::string_view authorization, std::int64_t now) const {
  auto principal = authenticate(authorization, now);
  if (!principal) return principal;
  if (auto own = refuse_client_token(*principal); !own) return std::unexpected(own.error());
  return principal;
}

Result<void> Guard::authorize(const Principal& principal, Capability required) {
  if (!role_has(principal.user().role, required)) {
    Error refused(Errc::not_permitted, std::string("role ") + std::string(to_string(principal.user().role)) +
                                           " lacks capability " + std::string(to_string(required)));
    refused.username = principal.user().username;
    return std::unexpected(std::move(refused));
  }
  // A service token holds the capabilities its scope names (RFC 6749 §4.4.2:
  // those of the role, or fewer if the client asked for fewer).
  if (principal.token_claims && is_service_subject(principal.claims().subject)) {
    const auto scope = principal.claims().extra.find("scope");
    const auto name = to_string(required);
    bool granted = false;
    if (scope != principal.claims().extra.end()) {
      for (std::string_view rest = scope->second; !rest.empty() && !granted;) {
        const auto space = rest.find(' ');
        granted = rest.substr(0, space) == name;
        rest = space == std::string_view::npos ? std::string_view() : rest.substr(space + 1);
      }
    }
    if (!granted) {
      Error refused(Errc::not_permitted, "the token's scope lacks capability " + std::string(name));
      refused.username = principal.user().username;
      return std::unexpected(std::move(refused));
    }
  }
  return {};
}

}  // namespace authd
