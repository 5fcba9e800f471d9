// The device authorization grant's codes (lib/oidc/device_authorizations.cpp,
// RFC 8628): user codes typed loosely but from the consonant alphabet only,
// both codes kept hashed, pending -> slow_down on a too-early poll (the
// interval grows), approved once, denied, expired; another client's device
// code is unknown; wrong user codes throttled per user.
#include <gtest/gtest.h>

#include "authd/device_authorizations.hpp"
#include "test_support.hpp"

namespace authd {
namespace {

constexpr std::int64_t kNow = 1'700'000'000;
const DeviceRequest kRequest{"client_0123456789abcdef01234567", "openid profile"};
const DeviceApproval kAlice{"u1", "alice", "pwd otp", kNow - 30};

TEST(DeviceUserCode, TypedLooselyFromTheConsonantAlphabetOnly) {
  EXPECT_EQ(normalized_user_code("BCDF-GHJK"), "BCDFGHJK");
  EXPECT_EQ(normalized_user_code("bcdf ghjk"), "BCDFGHJK");
  EXPECT_EQ(normalized_user_code("BCDFGHJ"), "") << "too short";
  EXPECT_EQ(normalized_user_code("BCDFGHJKL"), "") << "too long";
  EXPECT_EQ(normalized_user_code("BCDF-GHJA"), "") << "a vowel is not in the alphabet";
  EXPECT_EQ(normalized_user_code("BCDF%GHJK"), "");
}

TEST(DeviceAuthorizations, PendingSlowDownApprovedOnceAndKeptHashed) {
  test::TempStore db;
  DeviceAuthorizations devices(db.store());
  auto started = devices.start(kRequest, 5, kNow);
  ASSERT_TRUE(started) << started.error().message;
  EXPECT_EQ(started->user_code.size(), 9u);
  EXPECT_EQ(started->user_code[4], '-');
  EXPECT_FALSE(normalized_user_code(started->user_code).empty());
  for (const auto* ns : {"oidc_device", "oidc_user_code"}) {
    auto stored = read_value(db.store(), [&](StoreTxn& txn) { return txn.list_entries(ns); });
    ASSERT_TRUE(stored);
    ASSERT_EQ(stored->size(), 1u);
    EXPECT_EQ(stored->front().first.find(started->device_code), std::string::npos) << "kept only hashed";
    EXPECT_EQ(stored->front().second.find(normalized_user_code(started->user_code)), std::string::npos);
  }

  auto poll = devices.poll(started->device_code, kRequest.client_id, kNow + 5);
  ASSERT_TRUE(poll);
  EXPECT_EQ(poll->state, DevicePollState::pending);
  EXPECT_EQ(devices.poll(started->device_code, kRequest.client_id, kNow + 6)->state, DevicePollState::slow_down);
  EXPECT_EQ(devices.poll(started->device_code, kRequest.client_id, kNow + 12)->state, DevicePollState::slow_down)
      << "the interval is 10 s now";
  EXPECT_EQ(devices.poll(started->device_code, kRequest.client_id, kNow + 27)->state, DevicePollState::pending);
  EXPECT_EQ(outcome(devices.poll(started->device_code, "client_ffffffffffffffffffffffff", kNow + 60)),
            "invalid_token");

  auto request = devices.find(started->user_code, kNow + 30);
  ASSERT_TRUE(request);
  EXPECT_EQ(request->client_id, kRequest.client_id);
  EXPECT_EQ(request->scope, kRequest.scope);
  ASSERT_TRUE(devices.decide(started->user_code, true, kAlice, kNow + 31));
  EXPECT_EQ(outcome(devices.find(started->user_code, kNow + 32)), "invalid_token") << "the user code is used up";
  EXPECT_EQ(outcome(devices.decide(started->user_code, false, {}, kNow + 32)), "invalid_token");

  poll = devices.poll(started->device_code, kRequest.client_id, kNow + 60);
  ASSERT_TRUE(poll);
  EXPECT_EQ(poll->state, DevicePollState::approved);
  EXPECT_EQ(poll->approval.username, "alice");
  EXPECT_EQ(poll->approval.amr, "pwd otp");
  EXPECT_EQ(poll->request.scope, "openid profile");
  EXPECT_EQ(outcome(devices.poll(started->device_code, kRequest.client_id, kNow + 70)), "invalid_token")
      << "tokens once only";
}

TEST(DeviceAuthorizations, DeniedAndExpired) {
  test::TempStore db;
  DeviceAuthorizations devices(db.store());
  auto denied = devices.start(kRequest, 5, kNow);
  ASSERT_TRUE(denied);
  ASSERT_TRUE(devices.decide(denied->user_code, false, kAlice, kNow + 1));
  EXPECT_EQ(devices.poll(denied->device_code, kRequest.client_id, kNow + 10)->state, DevicePollState::denied);
  EXPECT_EQ(outcome(devices.poll(denied->device_code, kRequest.client_id, kNow + 20)), "invalid_token");

  auto late = devices.start(kRequest, 5, kNow);
  ASSERT_TRUE(late);
  EXPECT_EQ(outcome(devices.find(late->user_code, kNow + kDeviceCodeTtl)), "invalid_token");
  EXPECT_EQ(outcome(devices.decide(late->user_code, true, kAlice, kNow + kDeviceCodeTtl)), "invalid_token");
  EXPECT_EQ(devices.poll(late->device_code, kRequest.client_id, kNow + kDeviceCodeTtl)->state,
            DevicePollState::expired);
  EXPECT_EQ(outcome(devices.poll("no such code", kRequest.client_id, kNow)), "invalid_token");
}

TEST(DeviceAuthorizations, WrongUserCodesAreThrottledPerUser) {
  test::TempStore db;
  DeviceAuthorizations devices(db.store());
  for (int i = 0; i < kMaxUserCodeFailures; ++i) {
    EXPECT_TRUE(devices.may_try("u1", kNow).value_or(false)) << i;
    ASSERT_TRUE(devices.record_wrong_code("u1", kNow + i));
  }
  EXPECT_FALSE(devices.may_try("u1", kNow + 10).value_or(true));
  EXPECT_TRUE(devices.may_try("u2", kNow + 10).value_or(false)) << "another user is not concerned";
  EXPECT_TRUE(devices.may_try("u1", kNow + kUserCodeFailureWindow).value_or(false)) << "the window passed";
}

}  // namespace
}  // namespace authd
