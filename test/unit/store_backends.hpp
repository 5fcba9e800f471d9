// The store backends the contract suite (store_contract_test.cpp) runs on.
// Each backend registers one factory, in its own store_backend_NAME.cpp:
//
//   static const authd::test::RegisterStoreBackend kLmdb{{"lmdb", [] { ... }}};
//
// and every TEST_P of the suite runs once per registered backend (test names
// end in /lmdb, /postgresql, ...).
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "authd/store.hpp"
#include "test_support.hpp"

namespace authd::test {

// What a backend hands one test: a fresh, empty store of its own.
struct StoreUnderTest {
  std::unique_ptr<Store> store;
  // Another Store on the same data, as a second process or node would open
  // it (for cross-node cache coherence). Empty when the backend cannot open
  // its data twice in one process (LMDB).
  std::function<std::unique_ptr<Store>()> open_again;
  // Resources behind the store (a temporary directory, a database), released
  // after every store of the test is gone.
  std::shared_ptr<void> keep_alive;
};

struct StoreBackend {
  std::string name;  // letters, digits and _ (part of the test name)
  // Throws std::runtime_error when the backend cannot be set up.
  std::function<StoreUnderTest()> fresh;
};

// Test names and messages show the backend's name, not its bytes.
inline void PrintTo(const StoreBackend& backend, std::ostream* os) { *os << backend.name; }

inline std::vector<StoreBackend>& store_backends() {
  static std::vector<StoreBackend> backends;
  return backends;
}

struct RegisterStoreBackend {
  explicit RegisterStoreBackend(StoreBackend backend) { store_backends().push_back(std::move(backend)); }
};

// The fixture of the suites run on every backend: a fresh store per test
// (GetParam() is the backend), released after the test.
class StoreBackendTest : public ::testing::TestWithParam<StoreBackend> {
 protected:
  void SetUp() override {
    sut_ = GetParam().fresh();
    ASSERT_TRUE(sut_.store);
  }
  void TearDown() override {
    sut_.store.reset();
    sut_.keep_alive.reset();
  }
  Store& store() { return *sut_.store; }

  // One write transaction running `work`; its result.
  Result<void> write(const std::function<Result<void>(StoreTxn&)>& work) { return store().write(work); }
  Result<void> read(const std::function<Result<void>(StoreTxn&)>& work) { return store().read(work); }

  void insert(const User& user) {
    ASSERT_EQ("ok", outcome(write([&](StoreTxn& txn) { return txn.insert_user(user); })));
  }

  // What `query` answers in a read transaction (read_value, authd/store.hpp);
  // a failed check, and an empty value, when the read fails.
  template <class Query>
  auto read_ok(Query&& query) {
    auto got = read_value(store(), std::forward<Query>(query));
    EXPECT_EQ("ok", outcome(got));
    using Value = typename decltype(got)::value_type;
    return got ? std::move(*got) : Value{};
  }

  // The page list_users answers (a failed check when it fails).
  UserPage list_users(const UserQuery& query) {
    return read_ok([&](StoreTxn& txn) { return txn.list_users(query); });
  }
  // The usernames of a page, in its order.
  static std::vector<std::string> names(const UserPage& page) {
    std::vector<std::string> out;
    for (const auto& user : page.users) out.push_back(user.username);
    return out;
  }

  StoreUnderTest sut_;
};

}  // namespace authd::test
