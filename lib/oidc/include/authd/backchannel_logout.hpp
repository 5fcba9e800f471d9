// OpenID Connect Back-Channel Logout 1.0 (docs/openid-provider.md, "Back-channel
// logout"): when a user's authd sessions end, every relying party that user
// signed in to through one of them gets a logout token POSTed to its
// registered backchannel_logout_uri.
//
// The session id (`sid`): an authd browser session is its refresh family
// when it has one (stable across /token/refresh rotations), else its one
// access token (refresh_token_ttl = 0); `sid` is a digest of that handle
// (session_id_of), in every ID token of a code issued over the session.
//
// Which relying parties a user signed in to: a code redemption at /token of a
// client with a backchannel_logout_uri records an RP session (namespace
// "oidc_rp_session:<user id>", key "<client id> <sid>", expiring with
// rp_session_ttl). No other record says it: a first-party client without
// offline_access leaves no consent and no refresh family behind.
//
// When sessions end (the SessionEndHook that RefreshTokens and
// TokenRevocation call inside their transactions) the matching RP sessions
// are deleted and, in the same transaction, one logout is queued per RP
// session in the durable outbox (namespace "oidc_logout_outbox"). The
// sender (authd: src/serving/logout_sender.cpp) claims each one (one sender
// at a time across processes and nodes, as the mail outbox), signs a fresh
// logout token for each attempt, POSTs it, and deletes it on a 2xx; any
// other outcome is retried with backoff until the entry's give-up time.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "authd/error.hpp"
#include "authd/events.hpp"
#include "authd/json.hpp"
#include "authd/key_ring.hpp"
#include "authd/session_ends.hpp"
#include "authd/store.hpp"
#include "authd/token.hpp"

namespace authd {

inline constexpr std::string_view kBackchannelLogoutEvent = "http://schemas.openid.net/event/backchannel-logout";
// A logout token is good this long after it is signed (signed anew at every attempt).
inline constexpr std::int64_t kLogoutTokenTtl = 120;

// The `sid` of a session handle (its refresh family, else its access token's
// jti): base64url of the first 16 bytes of SHA-256("authd sid\n" + handle).
// A relying party learns no handle of authd's own.
std::string session_id_of(std::string_view handle);

// The session handle of an access token's claims (its `sid` refresh family,
// else its jti), as TokenRevocation::revoke names the session it ends.
std::string session_handle_of(const TokenClaims& claims);

// Notes, in `txn`, that user `user_id` signed in to `client_id` in session
// `sid` (issuer: the `iss` its ID token carried), until `expires_at`.
// Only for a client with a backchannel_logout_uri (else nothing).
Result<void> record_rp_session(StoreTxn& txn, std::string_view user_id, std::string_view client_id,
                               std::string_view sid, std::string_view issuer, std::int64_t expires_at);

struct LogoutToken {
  std::string issuer;
  std::string audience;  // the client id
  std::string subject;   // the user's _id, as in its ID tokens
  std::string sid;       // "" for none
  std::string jti;       // "" = a new random one
};

// The signed logout token (JWS with the ID-token ring's current key; typ
// "logout+jwt"): iss, aud, iat, exp (iat + kLogoutTokenTtl), jti, events
// {kBackchannelLogoutEvent: {}}, sub, sid; never nonce. Error: unavailable
// while the key storage has never been reached.
Result<std::string> sign_logout_token(KeyRing& ring, const LogoutToken& token, std::int64_t now);

// One queued logout: to `client_id`, for `subject` / `sid`.
struct QueuedLogout {
  std::string id;  // the outbox entry key (time-ordered)
  std::string client_id;
  std::string subject;
  std::string sid;
  std::string issuer;
  std::int64_t attempts = 0;
  std::int64_t queued_at = 0;
  std::int64_t give_up_at = 0;  // not delivered by then: dropped (audited)
};

// The outbox (namespace "oidc_logout_outbox"). Claiming is a
// read-modify-write in one write transaction, as mail::Outbox's: of two
// senders (processes, nodes) one gets the lease, the other retries and sees it.
class LogoutOutbox {
 public:
  static constexpr std::string_view kNamespace = "oidc_logout_outbox";

  // `retry_max`: longest wait between two attempts at one logout.
  LogoutOutbox(Store& store, std::chrono::seconds retry_max) : store_(store), retry_max_(retry_max) {}

  // Inside the caller's write transaction; `give_up_at` as in QueuedLogout.
  static Result<std::string> enqueue(StoreTxn& txn, const QueuedLogout& logout, std::int64_t now);

  // The oldest logout due and not leased, now leased to the caller for
  // `lease`. Logouts past their give-up time are deleted on the way and
  // handed back in `gave_up` (for the audit log and metrics).
  Result<std::optional<QueuedLogout>> claim(std::int64_t now, std::chrono::seconds lease,
                                            std::vector<QueuedLogout>* gave_up = nullptr);
  // Delivered (or pointless: the client is gone): deleted.
  Result<void> done(const QueuedLogout& logout);
  // Not delivered: the next attempt after a backoff (2^attempts seconds, at
  // most retry_max), the lease released.
  Result<void> failed(const QueuedLogout& logout, std::int64_t now);
  // Logouts waiting.
  Result<std::size_t> depth();

 private:
  Store& store_;
  std::chrono::seconds retry_max_;
};

struct BackchannelLogoutPolicy {
  std::chrono::seconds rp_session_ttl{24 * 3600};  // how long a code redemption's RP session is remembered
  std::chrono::seconds give_up{24 * 3600};         // a logout not delivered by then is dropped
};

// The hook the core gives RefreshTokens and TokenRevocation.
class BackchannelLogout : public SessionEndHook {
 public:
  BackchannelLogout(BackchannelLogoutPolicy policy, Events& events) : policy_(policy), events_(events) {}
  Result<std::size_t> ending(StoreTxn& txn, const EndedSessions& ended, std::int64_t now) override;
  void ended(std::size_t queued) override;
  const BackchannelLogoutPolicy& policy() const noexcept { return policy_; }

 private:
  BackchannelLogoutPolicy policy_;
  Events& events_;
};

}  // namespace authd
