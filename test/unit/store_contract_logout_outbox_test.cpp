// The store contract, continued: the back-channel logout outbox and the RP
// sessions it is filled from (authd/backchannel_logout.hpp), on every
// registered backend, as store_contract_test.cpp. What the backends must
// give it: a logout is queued in the transaction that ends the session (or
// not at all), each logout is claimed by one sender at a time however many
// senders (threads, or a second Store on the same data: another node), a
// failed one waits out its backoff, and one past its give-up time is handed
// back once for the audit line.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "authd/backchannel_logout.hpp"
#include "authd/oidc_clients.hpp"
#include "authd/refresh.hpp"
#include "store_backends.hpp"
#include "test_support.hpp"

namespace authd {
namespace {

using namespace std::chrono_literals;
constexpr std::int64_t kNow = 1'700'000'000;

struct CountingEvents : Events {
  std::atomic<int> queued{0};
  void logout_queued() override { ++queued; }
};

class StoreContractLogoutOutbox : public test::StoreBackendTest {
 protected:
  // A client with a logout URI (or none), registered in the store.
  std::string client(std::string uri = "https://shop.example/logout") {
    OidcClient spec;
    spec.name = "Shop";
    spec.redirect_uris = {"https://shop.example/cb"};
    spec.backchannel_logout_uri = std::move(uri);
    auto added = OidcClients(store(), crypto::sha256("test key")).add(spec, kNow);
    EXPECT_TRUE(added) << (added ? "" : added.error().message);
    return added ? added->client.id : std::string();
  }
  // As a code redemption records it.
  void signed_in(std::string_view user, std::string_view client_id, std::string_view handle) {
    EXPECT_EQ("ok", outcome(write([&](StoreTxn& txn) {
      return record_rp_session(txn, user, client_id, session_id_of(handle), "https://id.example", kNow + 3600);
    })));
  }
  std::size_t ending(BackchannelLogout& with, EndedSessions ended) {
    std::size_t queued = 0;
    EXPECT_EQ("ok", outcome(write([&](StoreTxn& txn) -> Result<void> {
      auto n = with.ending(txn, ended, kNow);
      if (!n) return std::unexpected(n.error());
      queued = *n;
      return {};
    })));
    return queued;
  }
  std::size_t depth() {
    auto n = LogoutOutbox(store(), 60s).depth();
    EXPECT_TRUE(n);
    return n ? *n : 0;
  }
  CountingEvents events;
  BackchannelLogout hook{{24h, 24h}, events};
};

TEST_P(StoreContractLogoutOutbox, OneSessionEndingQueuesOneLogoutPerClientOfThatSessionOnly) {
  const auto shop = client(), wiki = client("http://127.0.0.1:8080/logout"), quiet = client("");
  signed_in("u1", shop, "family-a");
  signed_in("u1", wiki, "family-a");
  signed_in("u1", shop, "family-b");
  signed_in("u1", quiet, "family-a");  // no logout URI: not even recorded
  signed_in("u2", shop, "family-a");
  EXPECT_EQ(2u, ending(hook, {"u1", EndedSessions::Scope::session, "family-a"}));
  EXPECT_EQ(0u, ending(hook, {"u1", EndedSessions::Scope::session, "family-a"})) << "an RP session ends once";
  EXPECT_EQ(2u, depth());
  LogoutOutbox outbox(store(), 60s);
  std::vector<std::string> clients;
  for (int i = 0; i < 2; ++i) {
    auto claimed = outbox.claim(kNow, 60s);
    ASSERT_TRUE(claimed && *claimed);
    EXPECT_EQ("u1", (*claimed)->subject);
    EXPECT_EQ(session_id_of("family-a"), (*claimed)->sid);
    EXPECT_EQ("https://id.example", (*claimed)->issuer);
    EXPECT_EQ(kNow + 24 * 3600, (*claimed)->give_up_at);
    clients.push_back((*claimed)->client_id);
    ASSERT_TRUE(outbox.done(**claimed));
  }
  std::ranges::sort(clients);
  std::vector<std::string> expected{shop, wiki};
  std::ranges::sort(expected);
  EXPECT_EQ(expected, clients);
  EXPECT_EQ(0u, depth());
}

TEST_P(StoreContractLogoutOutbox, AClientsOrEverySessionEnding) {
  const auto shop = client(), wiki = client();
  signed_in("u1", shop, "a");
  signed_in("u1", shop, "b");
  signed_in("u1", wiki, "a");
  EXPECT_EQ(2u, ending(hook, {"u1", EndedSessions::Scope::client, shop})) << "both of Shop's sessions";
  EXPECT_EQ(1u, ending(hook, {"u1", EndedSessions::Scope::all, {}})) << "what is left: Wiki's";
  EXPECT_EQ(3u, depth());
}

TEST_P(StoreContractLogoutOutbox, AFailedSessionEndQueuesNothing) {
  const auto shop = client();
  signed_in("u1", shop, "a");
  auto failed = write([&](StoreTxn& txn) -> Result<void> {
    if (auto n = hook.ending(txn, {"u1", EndedSessions::Scope::all, {}}, kNow); !n) return std::unexpected(n.error());
    return fail(Errc::internal, "the sign-out failed after");
  });
  EXPECT_FALSE(failed);
  EXPECT_EQ(0u, depth());
  EXPECT_EQ(1u, ending(hook, {"u1", EndedSessions::Scope::all, {}})) << "the RP session is still there";
}

TEST_P(StoreContractLogoutOutbox, RefreshTokensEndingSessionsQueueThroughTheHookAndWakeTheSender) {
  const auto shop = client();
  RefreshTokens refresh(store(), RefreshPolicy{3600s, 86400s});
  refresh.on_session_end(&hook);
  signed_in("u1", shop, "family-a");
  ASSERT_TRUE(refresh.end_family("u1", "family-b"));
  EXPECT_EQ(0u, depth());
  EXPECT_EQ(0, events.queued.load()) << "nothing queued, nobody woken";
  ASSERT_TRUE(refresh.end_family("u1", "family-a"));
  EXPECT_EQ(1u, depth());
  EXPECT_EQ(1, events.queued.load());
}

TEST_P(StoreContractLogoutOutbox, EachLogoutIsClaimedByOneSenderAtATime) {
  const auto shop = client();
  for (int i = 0; i < 5; ++i) signed_in("u1", shop, "s" + std::to_string(i));
  ASSERT_EQ(5u, ending(hook, {"u1", EndedSessions::Scope::all, {}}));
  std::unique_ptr<Store> other = sut_.open_again ? sut_.open_again() : nullptr;  // another node, when the backend can
  std::mutex mutex;
  std::vector<std::string> ids;
  std::vector<std::thread> senders;
  for (int t = 0; t < 8; ++t) {
    senders.emplace_back([&, t] {
      LogoutOutbox outbox(t % 2 && other ? *other : store(), 60s);
      for (int round = 0; round < 4; ++round) {
        auto claimed = outbox.claim(kNow, 60s);
        if (claimed && *claimed) {
          std::lock_guard lock(mutex);
          ids.push_back((*claimed)->id);
        }
      }
    });
  }
  for (auto& sender : senders) sender.join();
  std::ranges::sort(ids);
  EXPECT_EQ(5u, ids.size()) << "every logout claimed";
  EXPECT_EQ(ids.end(), std::ranges::adjacent_find(ids)) << "none twice while leased";
  auto again = LogoutOutbox(store(), 60s).claim(kNow + 59, 60s);
  ASSERT_TRUE(again);
  EXPECT_FALSE(*again) << "all leased";
  again = LogoutOutbox(store(), 60s).claim(kNow + 61, 60s);
  ASSERT_TRUE(again);
  EXPECT_TRUE(*again) << "a lease that ran out (a sender killed) lets another sender take it";
}

TEST_P(StoreContractLogoutOutbox, AFailedAttemptWaitsItsBackoffAndAGivenUpOneIsHandedBackOnce) {
  const auto shop = client();
  signed_in("u1", shop, "a");
  ASSERT_EQ(1u, ending(hook, {"u1", EndedSessions::Scope::all, {}}));
  LogoutOutbox outbox(store(), 3s);
  auto claimed = outbox.claim(kNow, 60s);
  ASSERT_TRUE(claimed && *claimed);
  ASSERT_TRUE(outbox.failed(**claimed, kNow));
  auto early = outbox.claim(kNow + 1, 60s);
  ASSERT_TRUE(early);
  EXPECT_FALSE(*early) << "2 s backoff after the first failure";
  auto retry = outbox.claim(kNow + 2, 60s);
  ASSERT_TRUE(retry && *retry);
  EXPECT_EQ(1, (*retry)->attempts);
  ASSERT_TRUE(outbox.failed(**retry, kNow + 2));
  ASSERT_TRUE(outbox.failed(**retry, kNow + 2));
  EXPECT_FALSE(*outbox.claim(kNow + 4, 60s)) << "capped at retry_max (3 s), not 8 s";
  EXPECT_TRUE(*outbox.claim(kNow + 5, 60s));

  std::vector<QueuedLogout> gave_up;
  auto late = outbox.claim(kNow + 24 * 3600, 60s, &gave_up);
  ASSERT_TRUE(late);
  EXPECT_FALSE(*late);
  ASSERT_EQ(1u, gave_up.size());
  EXPECT_EQ(shop, gave_up[0].client_id);
  EXPECT_EQ(3, gave_up[0].attempts);
  EXPECT_EQ(0u, depth());
  ASSERT_TRUE(outbox.claim(kNow + 24 * 3600, 60s, &gave_up));
  EXPECT_TRUE(gave_up.empty()) << "handed back once";
}

std::string backend_name(const ::testing::TestParamInfo<test::StoreBackend>& info) { return info.param.name; }

INSTANTIATE_TEST_SUITE_P(Backends, StoreContractLogoutOutbox, ::testing::ValuesIn(test::store_backends()), backend_name);

}  // namespace
}  // namespace authd
