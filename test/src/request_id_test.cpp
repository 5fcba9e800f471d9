// X-Request-Id for requests that bring none (src/http/request_id.cpp): each
// thread counts in its own range, and the ids of every thread must still be
// distinct, and 16 lowercase hex digits.
#include "http/request_id.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <thread>
#include <vector>

namespace authd::http {
namespace {

TEST(RequestId, SixteenHexDigits) {
  for (int i = 0; i < 100; ++i) {
    const std::string id = new_request_id();
    ASSERT_EQ(id.size(), 16u) << id;
    EXPECT_EQ(id.find_first_not_of("0123456789abcdef"), std::string::npos) << id;
  }
}

TEST(RequestId, IdsOfConcurrentThreadsAreDistinct) {
  constexpr int kThreads = 4;
  constexpr int kEach = 20000;
  std::vector<std::vector<std::string>> made(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&made, t] {
      made[static_cast<std::size_t>(t)].reserve(kEach);
      for (int i = 0; i < kEach; ++i) made[static_cast<std::size_t>(t)].push_back(new_request_id());
    });
  }
  for (auto& thread : threads) thread.join();
  std::set<std::string> distinct;
  for (const auto& ids : made) distinct.insert(ids.begin(), ids.end());
  for (int i = 0; i < kEach; ++i) distinct.insert(new_request_id());  // this thread's too
  EXPECT_EQ(distinct.size(), static_cast<std::size_t>((kThreads + 1) * kEach));
}

}  // namespace
}  // namespace authd::http
