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

// A holder, what it delivered, and when the test started.
struct Held {
  Deliveries d;
  DelayedAnswers holder;
  const Clock::time_point start = Clock::now();
  // Holds the answer `tag` until `after` past the start.
  void hold(Clock::duration after, int tag) { holder.hold(start + after, d.make(tag)); }
};

TEST(DelayedAnswers, DeliversEachAtItsTimeInTimeOrder) {
  Held h;
  h.hold(120ms, 3);
  h.hold(40ms, 1);
  h.hold(80ms, 2);
  EXPECT_EQ(h.d.count(), 0u) << "nothing is delivered before its time";
  ASSERT_TRUE(wait_for_count(h.d, 3, 5s));
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(h.d.seen[i].first, static_cast<int>(i + 1));
    EXPECT_GE(h.d.seen[i].second, h.start + (i + 1) * 40ms);
  }
}

TEST(DelayedAnswers, APastTimeIsDeliveredAtOnceOnTheCallingThread) {
  DelayedAnswers holder;
  std::thread::id ran_on;
  holder.hold(Clock::now() - 1ms, [&] { ran_on = std::this_thread::get_id(); });
  EXPECT_EQ(ran_on, std::this_thread::get_id());
}

TEST(DelayedAnswers, HoldingDoesNotHoldTheCaller) {
  Held h;
  for (int i = 0; i < 100; ++i) h.hold(10s, i);
  EXPECT_LT(Clock::now() - h.start, 1s) << "hold() returns at once";
  EXPECT_EQ(h.d.count(), 0u);
  h.holder.stop();
}

TEST(DelayedAnswers, StopDeliversWhatIsHeldNowAndLaterHoldsAtOnce) {
  Held h;
  h.hold(60s, 1);
  h.hold(30s, 2);
  h.holder.stop();
  ASSERT_EQ(h.d.count(), 2u) << "a stopping server does not wait out the delays";
  EXPECT_EQ(h.d.seen[0].first, 2);
  EXPECT_LT(Clock::now() - h.start, 5s);
  h.hold(60s, 3);
  EXPECT_EQ(h.d.count(), 3u);
  h.holder.stop();  // twice is harmless
}

}  // namespace
}  // namespace authd
