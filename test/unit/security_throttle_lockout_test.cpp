// Attack: brute force and lock-out abuse. An attacker guesses a user's
// password from many addresses (or from one IPv6 host rotating the low 64
// bits), or sends failures on purpose to lock the real user out, or fills the
// store so that failures are no longer counted. The per-account budget caps
// guesses from untrusted clients at 100 an hour from all addresses together,
// IPv6 clients count per /64, a device cookie keeps the real user's browser
// out of the lock-out, a loopback proxy never becomes a known address, and a
// throttle that cannot record fails closed.
#include <gtest/gtest.h>

#include "authd/throttle.hpp"
#include "test_support.hpp"

namespace authd {
namespace {

constexpr std::int64_t kNow = 1'700'000'000;

ThrottlePolicy lenient_per_user() {
  ThrottlePolicy policy;
  policy.user_threshold = 100000;    // only the account budget can stop this attacker
  policy.address_threshold = 100000;
  return policy;
}

std::string nth_address(int i) { return "198.51." + std::to_string(i / 250) + "." + std::to_string(i % 250 + 1); }

TEST(SecurityThrottleLockout, AtMostTheBudgetOfGuessesPerAccountFromAllAddressesTogether) {
  test::TempStore store;
  SigninThrottle throttle(store.store(), lenient_per_user());
  int accepted = 0;
  for (int i = 0; i < 300; ++i) {
    const auto address = nth_address(i);  // a botnet: a new address per guess
    if (!throttle.check("alice", address, kNow + i)) continue;
    ++accepted;
    ASSERT_TRUE(throttle.record_failure("alice", address, kNow + i));
  }
  EXPECT_EQ(accepted, 100);
  auto refused = throttle.check("ALICE", "203.0.113.9", kNow + 400);  // the name's case does not help
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, Errc::throttled);
  EXPECT_TRUE(throttle.check("alice", "203.0.113.9", kNow + 3601));  // the window ends
  EXPECT_TRUE(throttle.check("bob", "203.0.113.9", kNow + 400));     // other accounts are untouched
}

TEST(SecurityThrottleLockout, TheUsersOwnDeviceIsNeverLockedOutByOthers) {
  test::TempStore store;
  SigninThrottle throttle(store.store(), ThrottlePolicy{});
  for (int i = 0; i < 150; ++i) (void)throttle.record_failure("alice", nth_address(i), kNow);
  EXPECT_FALSE(throttle.check("alice", "203.0.113.9", kNow + 1));
  EXPECT_TRUE(throttle.check("alice", "203.0.113.9", kNow + 1, "device-jti-1"));
  // A device's own failures lock out that device only.
  for (int i = 0; i < 12; ++i) (void)throttle.record_failure("alice", "203.0.113.9", kNow + 2, "device-jti-2");
  EXPECT_FALSE(throttle.check("alice", "203.0.113.9", kNow + 3, "device-jti-2"));
  EXPECT_TRUE(throttle.check("alice", "203.0.113.9", kNow + 3, "device-jti-1"));
}

// A directory entry answers to two names (sAMAccountName and UPN): failures
// under either count for the entry's own name, once per failure.
TEST(SecurityThrottleLockout, AnotherNameOfTheAccountCountsForTheAccount) {
  test::TempStore store;
  ThrottlePolicy policy;
  policy.user_threshold = 3;
  policy.address_threshold = 100000;
  policy.first_delay = std::chrono::seconds(60);
  SigninThrottle throttle(store.store(), policy);
  for (int i = 0; i < 4; ++i) {
    const bool upn = i % 2 == 0;
    ASSERT_TRUE(throttle.record_failure(upn ? "alice@example.org" : "alice", nth_address(i), kNow,
                                        /*device=*/{}, /*account_name=*/upn ? "alice" : ""));
  }
  // Four failures of the account (two under each name): past the threshold
  // for the account's own name, not for the other name alone.
  EXPECT_FALSE(throttle.check("alice", "203.0.113.9", kNow + 1));
  EXPECT_FALSE(throttle.check("ALICE", "203.0.113.9", kNow + 1));
  EXPECT_TRUE(throttle.check("alice@example.org", "203.0.113.9", kNow + 1));
  // The same name twice (any case) counts once.
  ASSERT_TRUE(throttle.record_failure("bob", "203.0.113.9", kNow, {}, "BOB"));
  ASSERT_TRUE(throttle.record_failure("bob", "203.0.113.9", kNow, {}, "bob"));
  ASSERT_TRUE(throttle.record_failure("bob", "203.0.113.9", kNow, {}, ""));
  EXPECT_TRUE(throttle.check("bob", "198.51.100.7", kNow + 1));  // 3 failures: at the threshold, not past it
}

TEST(SecurityThrottleLockout, IPv6ClientsCountPerSlash64) {
  EXPECT_EQ(address_group("2001:db8:1:2:aaaa:bbbb:cccc:dddd"), "2001:db8:1:2::/64");
  EXPECT_EQ(address_group("2001:db8:1:2::1"), address_group("2001:db8:1:2:ffff::9"));
  EXPECT_NE(address_group("2001:db8:1:2::1"), address_group("2001:db8:1:3::1"));
  EXPECT_EQ(address_group("::ffff:192.0.2.1"), "192.0.2.1");
  EXPECT_EQ(address_group("192.0.2.1"), "192.0.2.1");

  test::TempStore store;
  ThrottlePolicy policy;
  policy.address_threshold = 5;
  SigninThrottle throttle(store.store(), policy);
  for (int i = 0; i < 6; ++i) {
    // a fresh interface identifier and a fresh name per guess
    ASSERT_TRUE(throttle.record_failure("user" + std::to_string(i), "2001:db8:1:2::" + std::to_string(i + 1), kNow));
  }
  EXPECT_FALSE(throttle.check("someone", "2001:db8:1:2:dead:beef::1", kNow));
  EXPECT_TRUE(throttle.check("someone", "2001:db8:1:3::1", kNow));
}

TEST(SecurityThrottleLockout, ALoopbackProxyNeverBecomesAKnownAddress) {
  test::TempStore store;
  SigninThrottle throttle(store.store(), ThrottlePolicy{});
  ASSERT_TRUE(throttle.record_success("alice", "127.0.0.1", kNow));
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(throttle.record_failure("alice", "127.0.0.1", kNow + 1));
  // Had 127.0.0.1 become alice's known address, every client behind the proxy would skip her delay.
  EXPECT_FALSE(throttle.check("alice", "127.0.0.1", kNow + 2));
}

TEST(SecurityThrottleLockout, ThrottleStateExpiresAndIsPurged) {
  test::TempStore store;
  SigninThrottle throttle(store.store(), ThrottlePolicy{});
  ASSERT_TRUE(throttle.record_failure("alice", "192.0.2.1", kNow));
  auto purged = throttle.purge(kNow + 31LL * 24 * 3600);
  ASSERT_TRUE(purged);
  EXPECT_GE(*purged, 3u);  // user, budget and address counters
}

// A store that answers reads but refuses every write (a full LMDB map).
class FullStore : public Store {
 public:
  explicit FullStore(Store& inner) : inner_(inner) {}
  Result<void> read(const Work& work) override { return inner_.read(work); }
  Result<void> write(const Work&) override { return fail(Errc::storage_full, "map full"); }
  Result<std::shared_ptr<const User>> find_user_shared(std::string_view username) override {
    return inner_.find_user_shared(username);
  }
  Result<StoreStats> stats() override { return inner_.stats(); }
  std::string_view name() const noexcept override { return "full"; }

 private:
  Store& inner_;
};

TEST(SecurityThrottleLockout, AThrottleThatCannotRecordFailsClosed) {
  test::TempStore store;
  FullStore full(store.store());
  SigninThrottle throttle(full, ThrottlePolicy{});
  auto counted = throttle.record_failure("alice", "192.0.2.1", kNow);
  ASSERT_FALSE(counted);
  EXPECT_EQ(counted.error().code, Errc::unavailable);
  auto admitted = throttle.admit_signup("192.0.2.1", kNow);
  ASSERT_FALSE(admitted);
  EXPECT_EQ(admitted.error().code, Errc::unavailable);
}

TEST(SecurityThrottleLockout, SignUpsPerAddressAreLimited) {
  test::TempStore store;
  ThrottlePolicy policy;
  policy.signup_address_limit = 3;
  SigninThrottle throttle(store.store(), policy);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(throttle.admit_signup("2001:db8::" + std::to_string(i + 1), kNow));
  auto refused = throttle.admit_signup("2001:db8::99", kNow);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, Errc::throttled);
  EXPECT_TRUE(throttle.admit_signup("2001:db8::99", kNow + 3600));
}

}  // namespace
}  // namespace authd
