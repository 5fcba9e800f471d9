// private_key_jwt: the client's keys and the jti replay cache
// (authd/client_assertions.hpp).
#include "authd/client_assertions.hpp"

#include "authd/client_assertion.hpp"
#include "authd/crypto.hpp"

namespace authd {
namespace {

// A jwks_uri is fetched on the request that needs it: short, so that a slow
// or dead address holds one request briefly, and a failure is remembered
// (kJwksRefetchSeconds) so that it does not hold every request.
constexpr HttpTimeouts kJwksTimeouts{std::chrono::milliseconds(1000), std::chrono::milliseconds(2000)};
constexpr std::size_t kMaxFetchedJwks = 64 * 1024;

std::unexpected<Error> refused(std::string why) { return fail(Errc::invalid_login, std::move(why)); }

}  // namespace

ClientAssertions::ClientAssertions(Store& store, OidcClients& clients)
    : store_(store), clients_(clients), http_(kJwksTimeouts) {}

Result<std::string> ClientAssertions::fetched_jwks(std::string_view uri, std::int64_t now, bool refetch) {
  {
    std::lock_guard lock(mutex_);
    const auto found = fetched_.find(uri);
    if (found != fetched_.end()) {
      const auto age = now - found->second.at;
      const bool fresh = found->second.jwks.empty() || refetch ? age < kJwksRefetchSeconds : age < kJwksCacheSeconds;
      if (fresh) {
        if (found->second.jwks.empty()) return refused("the client's jwks_uri could not be fetched lately");
        return found->second.jwks;
      }
    }
  }
  // Registered as https (http only to a loopback host): checked again, a
  // client stored before that rule would otherwise be fetched as it is.
  std::string jwks;
  if (validate_redirect_uri(uri, "jwks_uri")) {
    auto answer = http_.get(uri, {"Accept: application/jwk-set+json, application/json"});
    if (answer && answer->status == 200 && answer->body.size() <= kMaxFetchedJwks) jwks = std::move(answer->body);
  }
  std::lock_guard lock(mutex_);
  fetched_[std::string(uri)] = Fetched{jwks, now};
  if (jwks.empty()) return refused("the client's jwks_uri could not be fetched");
  return jwks;
}

Result<OidcClient> ClientAssertions::authenticate(std::string_view assertion, std::string_view claimed_id,
                                                  const std::vector<std::string>& audiences, std::int64_t now) {
  auto peeked = jose::peek_client_assertion(assertion);
  if (!peeked) return refused(peeked.error().message);
  if (!claimed_id.empty() && claimed_id != peeked->subject) return refused("client_id is not the assertion's sub");
  auto client = clients_.find(peeked->subject);
  if (!client) {
    if (client.error().code == Errc::not_found) return refused("unknown client");
    return std::unexpected(client.error());
  }
  if (auth_method(*client) != "private_key_jwt") return refused("the client does not authenticate with private_key_jwt");
  const jose::ClientAssertionChecks checks{.client_id = client->id,
                                           .audiences = audiences,
                                           .now = now,
                                           .leeway = kAssertionLeeway,
                                           .max_lifetime = kAssertionMaxLifetime};
  auto verify = [&](bool refetch) -> Result<jose::VerifiedAssertion> {
    std::string text = client->jwks;
    if (text.empty()) {
      auto fetched = fetched_jwks(client->jwks_uri, now, refetch);
      if (!fetched) return std::unexpected(fetched.error());
      text = std::move(*fetched);
    }
    auto keys = jose::ClientKeys::parse(text);
    if (!keys) return refused("the client's JWK Set is unusable: " + keys.error().message);
    return jose::verify_client_assertion(assertion, *keys, checks);
  };
  auto verified = verify(false);
  // A kid its cached JWK Set does not know: the client may have rotated.
  if (!verified && !client->jwks_uri.empty() && verified.error().code == Errc::not_found) {
    verified = verify(true);
  }
  if (!verified) return refused(verified.error().message);
  // The jti once, on every node: checked and remembered in one serialisable
  // write transaction.
  const std::string key = crypto::to_hex(crypto::sha256(client->id + "\n" + verified->jti));
  bool replayed = false;
  const bool purge = accepted_.fetch_add(1, std::memory_order_relaxed) % 64 == 63;
  auto done = store_.write([&](StoreTxn& txn) -> Result<void> {
    replayed = false;
    if (purge) {
      if (auto dropped = txn.purge_expired(now); !dropped) return std::unexpected(dropped.error());
    }
    auto seen = txn.get_entry(kAssertionJtiNamespace, key);
    if (!seen) return std::unexpected(seen.error());
    if (*seen) {
      replayed = true;
      return {};
    }
    return txn.put_entry(kAssertionJtiNamespace, key, "", verified->expires_at + kAssertionLeeway);
  });
  if (!done) return std::unexpected(done.error());
  if (replayed) return refused("client assertion rejected: its jti was used before (a replay)");
  return client;
}

}  // namespace authd
