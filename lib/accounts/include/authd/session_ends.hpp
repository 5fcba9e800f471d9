// What else happens when a user's sessions end, inside the write transaction
// that ends them. RefreshTokens (end_family, end_client, end_user) and
// TokenRevocation (revoke) call the hook they were given; the core gives
// them the OpenID provider's back-channel logout (authd/backchannel_logout.hpp),
// which queues a logout token for every relying party the ended sessions
// signed in to. In the same transaction: a session never ends without its
// logout being queued, and nothing is queued for a sign-out that failed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "authd/error.hpp"
#include "authd/store.hpp"

namespace authd {

struct EndedSessions {
  enum class Scope {
    session,  // one session: `id` is its handle (its refresh family, else its access token's jti)
    client,   // the user's sessions with OpenID client `id` (consent revoked)
    all,      // every session of the user (sign-out everywhere, password change, operator)
  };
  std::string_view user_id;
  Scope scope = Scope::all;
  std::string_view id;
};

class SessionEndHook {
 public:
  virtual ~SessionEndHook() = default;
  // Inside the transaction ending `ended` (it may run again when a backend
  // retries the transaction). Returns how many follow-ups it queued.
  virtual Result<std::size_t> ending(StoreTxn& txn, const EndedSessions& ended, std::int64_t now) = 0;
  // After that transaction committed, with what the last ending() returned.
  virtual void ended(std::size_t queued) = 0;
};

}  // namespace authd
