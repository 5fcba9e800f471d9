// DelayedAnswers (src/serving/delayed_answers.hpp): an answer held until its time is
// delivered then, in time order, by the timer thread; a past time or a
// stopped holder delivers at once; stop() delivers what is still held.
#include "serving/delayed_answers.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

namespace authd {
namespace {

using namespace std::chrono_literals;
using Clock = DelayedAnswers::Clock;

struct Deliveries {
  std::mutex mutex;
  std::vector<std::pair<int, Clock::time_point>> seen;  // (tag, when delivered)
  DelayedAnswers::Deliver make(int tag) {
    return [this, tag] {
      std::lock_guard lock(mutex);
      seen.emplace_back(tag, Clock::now());
    };
  }
  std::size_t count() {
    std::lock_guard lock(mutex);
    return seen.size();
  }
};

bool wait_for_count(Deliveries& d, std::size_t n, std::chrono::milliseconds limit) {
  const auto deadline = Clock::now() + limit;
  while (d.count() < n) {
    if (Clock::now() > deadline) return false;
    std::this_thread::sleep_for(1ms);
  }
  return true;
}

TEST(DelayedAnswers, DeliversEachAtItsTimeInTimeOrder) {
  Deliveries d;
  DelayedAnswers holder;
  const auto start = Clock::now();
  holder.hold(start + 120ms, d.make(3));
  holder.hold(start + 40ms, d.make(1));
  holder.hold(start + 80ms, d.make(2));
  EXPECT_EQ(d.count(), 0u) << "nothing is delivered before its time";
  ASSERT_TRUE(wait_for_count(d, 3, 5s));
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(d.seen[i].first, static_cast<int>(i + 1));
    EXPECT_GE(d.seen[i].second, start + (i + 1) * 40ms);
  }
}

TEST(DelayedAnswers, APastTimeIsDeliveredAtOnceOnTheCallingThread) {
  Deliveries d;
  DelayedAnswers holder;
  std::thread::id ran_on;
  holder.hold(Clock::now() - 1ms, [&] { ran_on = std::this_thread::get_id(); });
  EXPECT_EQ(ran_on, std::this_thread::get_id());
}

TEST(DelayedAnswers, HoldingDoesNotHoldTheCaller) {
  DelayedAnswers holder;
  Deliveries d;
  const auto start = Clock::now();
  for (int i = 0; i < 100; ++i) holder.hold(start + 10s, d.make(i));
  EXPECT_LT(Clock::now() - start, 1s) << "hold() returns at once";
  EXPECT_EQ(d.count(), 0u);
  holder.stop();
}

TEST(DelayedAnswers, StopDeliversWhatIsHeldNowAndLaterHoldsAtOnce) {
  Deliveries d;
  DelayedAnswers holder;
  const auto start = Clock::now();
  holder.hold(start + 60s, d.make(1));
  holder.hold(start + 30s, d.make(2));
  holder.stop();
  ASSERT_EQ(d.count(), 2u) << "a stopping server does not wait out the delays";
  EXPECT_EQ(d.seen[0].first, 2);
  EXPECT_LT(Clock::now() - start, 5s);
  holder.hold(start + 60s, d.make(3));
  EXPECT_EQ(d.count(), 3u);
  holder.stop();  // twice is harmless
}

}  // namespace
}  // namespace authd
