// What a user allowed an OpenID client that is not first-party (the consent
// page of /authorize): remembered per user and client for a year, under the
// SHA-256 of the pair (namespace "oidc_consent"), with the scopes granted and
// the client's id (so that removing the client deletes its consents).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "authd/error.hpp"
#include "authd/store.hpp"

namespace authd {

inline constexpr std::int64_t kConsentTtl = 365LL * 24 * 3600;

class OidcConsents {
 public:
  explicit OidcConsents(Store& store) : store_(store) {}

  // Whether the user allowed every scope of `scope` (space-separated) to the client.
  Result<bool> covers(std::string_view user_id, std::string_view client_id, std::string_view scope, std::int64_t now);
  // Records that the user allowed `scope` (added to what was allowed before).
  Result<void> grant(std::string_view user_id, std::string_view client_id, std::string_view scope, std::int64_t now);
  // Forgets the consent (revoked). Absent: ok.
  Result<void> revoke(std::string_view user_id, std::string_view client_id);

 private:
  Store& store_;
};

// Deletes every user's consent to client `client_id` in `txn` (the client is
// being removed: OidcClients::remove). Returns how many. A consent recorded
// before consents named their client cannot be told apart and is left: it
// lapses within the year, and no client id is ever registered again.
Result<std::size_t> revoke_client_consents(StoreTxn& txn, std::string_view client_id);

}  // namespace authd
