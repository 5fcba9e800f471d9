// The key ring kept in the store's entries (store_key_storage), on every
// registered store backend (store_backends.hpp): one first key however many
// processes open it at once, rotations seen at once when issuing and within
// a second when verifying, retirement, and tokens that cross "nodes" (two
// Store objects on one database, where the backend can open it twice).
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <optional>
#include <thread>
#include <string>
#include <vector>

#include "authd/crypto.hpp"
#include "authd/json.hpp"
#include "authd/jws.hpp"
#include "authd/key_ring.hpp"
#include "authd/key_storage.hpp"
#include "authd/postgres_store.hpp"
#include "authd/token.hpp"
#include "postgres_test_cluster.hpp"
#include "store_backends.hpp"
#include "test_support.hpp"

namespace authd {
namespace {

using crypto::KeyAlgorithm;
using test::StoreBackend;
constexpr std::int64_t kNow = 1'700'000'000;

std::string kid_of(const std::string& token) {
  const auto header = Json::parse(*crypto::base64url_decode(jws::split(token)->header));
  return std::string(header->get_string("kid").value_or(""));
}

class StoreKeyRing : public ::testing::TestWithParam<StoreBackend> {
 protected:
  void SetUp() override {
    sut_ = GetParam().fresh();
    ASSERT_TRUE(sut_.store);
    // A second node: another Store on the same database, else the same one
    // (LMDB cannot be opened twice in one process).
    if (sut_.open_again) other_ = sut_.open_again();
  }
  void TearDown() override {
    other_.reset();
    sut_.store.reset();
    sut_.keep_alive.reset();
  }
  Store& store() { return *sut_.store; }
  Store& other() { return other_ ? *other_ : *sut_.store; }

  std::vector<std::pair<std::string, std::string>> key_entries() {
    auto entries = read_value(store(), [](StoreTxn& txn) { return txn.list_entries("signing_keys"); });
    EXPECT_TRUE(entries);
    return entries ? *entries : decltype(key_entries()){};
  }

  static TokenService tokens_on(std::shared_ptr<KeyRing> ring) {
    TokenPolicy policy;
    policy.algorithm = TokenAlgorithm::eddsa;
    return *TokenService::create(SigningKey(std::string(32, 'k')), policy, std::move(ring));
  }

  test::StoreUnderTest sut_;
  std::unique_ptr<Store> other_;
};

TEST_P(StoreKeyRing, FirstOpenMakesOneKeyThatTheNextOpenFinds) {
  auto ring = KeyRing::open(store_key_storage(store()), KeyAlgorithm::ed25519);
  ASSERT_TRUE(ring) << ring.error().message;
  const auto keys = (*ring)->keys(KeyRing::Check::always, kNow);
  ASSERT_EQ(keys->by_kid.size(), 1u);
  EXPECT_TRUE(keys->by_kid.contains(keys->current));
  const auto entries = key_entries();
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].first, keys->current);
  EXPECT_TRUE(entries[0].second.starts_with("-----BEGIN PRIVATE KEY-----")) << "PKCS#8 PEM";

  auto again = KeyRing::open(store_key_storage(other()), KeyAlgorithm::ed25519);
  ASSERT_TRUE(again);
  EXPECT_EQ((*again)->keys(KeyRing::Check::always, kNow)->current, keys->current);
  EXPECT_EQ(key_entries().size(), 1u) << "no second key";
}

TEST_P(StoreKeyRing, NodesStartingTogetherMakeOneCurrentKey) {
  constexpr int kNodes = 6;
  std::vector<std::unique_ptr<Store>> stores;
  for (int i = 0; i < kNodes && sut_.open_again; ++i) stores.push_back(sut_.open_again());
  std::promise<void> go;
  std::shared_future<void> start = go.get_future().share();
  std::vector<std::future<std::string>> nodes;
  for (int i = 0; i < kNodes; ++i) {
    Store& node_store = stores.empty() ? store() : *stores[static_cast<std::size_t>(i)];
    nodes.push_back(std::async(std::launch::async, [&node_store, start] {
      start.wait();
      auto ring = KeyRing::open(store_key_storage(node_store), KeyAlgorithm::ed25519);
      if (!ring) return "error: " + ring.error().message;
      return (*ring)->keys(KeyRing::Check::always, kNow)->current;
    }));
  }
  go.set_value();
  std::vector<std::string> currents;
  for (auto& node : nodes) currents.push_back(node.get());
  for (const auto& current : currents) EXPECT_EQ(current, currents[0]);
  EXPECT_TRUE(is_valid_kid(currents[0])) << currents[0];
  EXPECT_EQ(key_entries().size(), 1u) << "one key made, not one per node";
}

TEST_P(StoreKeyRing, RotationIsSeenAtOnceWhenIssuingAndWithinASecondWhenVerifying) {
  auto ring = *KeyRing::open(store_key_storage(store()), KeyAlgorithm::ed25519);
  const auto first = ring->keys(KeyRing::Check::always, kNow)->current;
  const auto version = ring->version(kNow);
  auto operator_storage = store_key_storage(other());
  auto second = KeyRing::rotate(*operator_storage, KeyAlgorithm::ed25519);
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_EQ(ring->version(kNow), version) << "no new check within the same second";
  EXPECT_EQ(ring->version(kNow + 1), version + 1) << "the next second's check sees the rotation";
  const auto keys = ring->keys(KeyRing::Check::always, kNow + 1);
  EXPECT_EQ(keys->current, *second);
  EXPECT_EQ(keys->by_kid.size(), 2u);

  auto third = KeyRing::rotate(*operator_storage, KeyAlgorithm::ed25519);
  ASSERT_TRUE(third);
  EXPECT_EQ(ring->keys(KeyRing::Check::always, kNow + 1)->current, *third) << "issuing checks every time";

  EXPECT_EQ(outcome(KeyRing::retire(*operator_storage, *third)), "invalid_input") << "never the current key";
  EXPECT_EQ(outcome(KeyRing::retire(*operator_storage, "0-nosuchkey")), "invalid_input");
  auto retired = KeyRing::retire(*operator_storage, first);
  ASSERT_TRUE(retired);
  EXPECT_EQ(*retired, std::vector<std::string>{first});
  retired = KeyRing::retire(*operator_storage, "");
  ASSERT_TRUE(retired);
  EXPECT_EQ(*retired, std::vector<std::string>{*second});
  EXPECT_EQ(ring->keys(KeyRing::Check::periodic, kNow + 2)->by_kid.size(), 1u);
  EXPECT_EQ(key_entries().size(), 1u);
}

TEST_P(StoreKeyRing, TokensCrossNodesAndARetiredKeyFailsEvenWhenCached) {
  auto ring_a = *KeyRing::open(store_key_storage(store()), KeyAlgorithm::ed25519);
  auto ring_b = *KeyRing::open(store_key_storage(other()), KeyAlgorithm::ed25519);
  auto a = tokens_on(ring_a);
  auto b = tokens_on(ring_b);
  const auto old_token = a.issue(kAccessTokenType, "id1", "alice", kNow);
  ASSERT_EQ(outcome(b.verify(old_token, kAccessTokenType, kNow)), "ok");  // now cached on B
  ASSERT_EQ(outcome(a.verify(old_token, kAccessTokenType, kNow)), "ok");  // and on A

  auto next = KeyRing::rotate(*store_key_storage(other()), KeyAlgorithm::ed25519);
  ASSERT_TRUE(next);
  const auto new_token = b.issue(kAccessTokenType, "id1", "alice", kNow);
  EXPECT_EQ(kid_of(new_token), *next) << "B signs with the new key at once";
  EXPECT_EQ(outcome(a.verify(new_token, kAccessTokenType, kNow)), "ok") << "A looks again for an unknown kid";
  EXPECT_EQ(kid_of(a.issue(kAccessTokenType, "id1", "alice", kNow)), *next);
  EXPECT_EQ(outcome(b.verify(old_token, kAccessTokenType, kNow + 1)), "ok") << "the old key keeps verifying";

  ASSERT_TRUE(KeyRing::retire(*store_key_storage(store()), ""));
  EXPECT_EQ(outcome(a.verify(old_token, kAccessTokenType, kNow + 2)), "invalid_token");
  EXPECT_EQ(outcome(b.verify(old_token, kAccessTokenType, kNow + 2)), "invalid_token")
      << "a retired key's token fails within a second on every node, cached or not";
  EXPECT_EQ(outcome(b.verify(new_token, kAccessTokenType, kNow + 2)), "ok");
  const auto jwks = Json::parse(*a.jwks());
  ASSERT_TRUE(jwks);
  EXPECT_EQ(jwks->get("keys").size(), 1u);
}

TEST_P(StoreKeyRing, AKeyOfAnotherAlgorithmIsNeverUsed) {
  ASSERT_TRUE(KeyRing::rotate(*store_key_storage(store()), KeyAlgorithm::es256));
  auto ring = KeyRing::open(store_key_storage(store()), KeyAlgorithm::ed25519);
  ASSERT_TRUE(ring);
  const auto keys = (*ring)->keys(KeyRing::Check::always, kNow);
  ASSERT_EQ(keys->by_kid.size(), 1u) << "the P-256 key never signs or verifies EdDSA";
  EXPECT_EQ(keys->by_kid.begin()->second.algorithm(), KeyAlgorithm::ed25519);
  EXPECT_EQ(key_entries().size(), 2u);
}

// A node that starts while PostgreSQL is down starts anyway, with no key
// (tokens are refused, nothing crashes), and loads, or makes, the keys by
// itself once the database is back.
TEST(PostgresKeyRing, DatabaseDownAtStartOpensWithNoKeyAndLoadsThemWhenItIsBack) {
  using namespace std::chrono_literals;
  test::PgCluster cluster = test::PgCluster::create();
  cluster.start();
  cluster.psql("postgres", "CREATE DATABASE authd");
  const std::string url = cluster.url("authd");
  cluster.stop();

  PostgresOptions options;
  options.database_url = url;
  options.pool_size = 2;
  options.statement_timeout = 5000ms;
  options.connect_timeout = 2000ms;
  auto store = open_postgres_store(options);
  ASSERT_TRUE(store) << store.error().message;
  auto ring = KeyRing::open(store_key_storage(**store), KeyAlgorithm::ed25519);
  ASSERT_TRUE(ring) << "opens although the database is down: " << ring.error().message;
  EXPECT_EQ((*ring)->keys(KeyRing::Check::always, kNow)->current, "");
  TokenPolicy policy;
  policy.algorithm = TokenAlgorithm::eddsa;
  auto tokens = *TokenService::create(SigningKey(std::string(32, 'k')), policy, *ring);
  const std::string foreign =
      R"(eyJhbGciOiJFZERTQSIsInR5cCI6ImF0K2p3dCIsImtpZCI6IjEtYSJ9.eyJzdWIiOiJ4In0.)" + std::string(86, 'A');
  EXPECT_EQ(outcome(tokens.verify(foreign, kAccessTokenType, kNow)), "invalid_token");

  cluster.start();
  std::string current;
  for (int i = 0; i < 500 && current.empty(); ++i) {
    current = (*ring)->keys(KeyRing::Check::always, kNow)->current;
    if (current.empty()) std::this_thread::sleep_for(10ms);
  }
  ASSERT_TRUE(is_valid_kid(current)) << "a first key once the database is back";
  const auto token = tokens.issue(kAccessTokenType, "id1", "alice", kNow);
  EXPECT_EQ(kid_of(token), current);
  EXPECT_EQ(outcome(tokens.verify(token, kAccessTokenType, kNow)), "ok");
  EXPECT_EQ(cluster.psql("authd", "SELECT count(*) FROM entries WHERE ns = 'signing_keys'"), "1");
}

std::string backend_name(const ::testing::TestParamInfo<StoreBackend>& info) { return info.param.name; }

INSTANTIATE_TEST_SUITE_P(Backends, StoreKeyRing, ::testing::ValuesIn(test::store_backends()), backend_name);

}  // namespace
}  // namespace authd
