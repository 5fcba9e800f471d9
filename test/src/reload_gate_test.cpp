// ReloadGate (src/serving/reload_gate.hpp), what a reload replaces the App behind:
// closing waits for every hold given out; while closed, nobody enters; a
// hold can be dropped on another thread than the one that entered; and
// under many threads entering and leaving, a closed gate never has anyone
// inside (the reload would destroy the App under a running request).
#include "serving/reload_gate.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace authd {
namespace {

using namespace std::chrono_literals;

TEST(ReloadGate, EnteringAnOpenGateGivesAHold) {
  ReloadGate gate;
  Hold hold = gate.enter();
  EXPECT_TRUE(hold);
  hold.reset();
  EXPECT_FALSE(hold);
  gate.close();  // nobody inside: returns at once
  gate.open();
}

TEST(ReloadGate, ClosingWaitsForEveryHold) {
  ReloadGate gate;
  Hold first = gate.enter();
  Hold second = gate.enter();
  std::atomic<bool> closed{false};
  std::thread closer([&] {
    gate.close();
    closed = true;
  });
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(closed) << "closed with two holds out";
  first.reset();
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(closed) << "closed with one hold out";
  // Dropped on another thread than the one that entered.
  std::thread([hold = std::move(second)]() mutable { hold.reset(); }).join();
  closer.join();
  EXPECT_TRUE(closed);
  gate.open();
}

TEST(ReloadGate, EntriesWaitWhileItIsClosed) {
  ReloadGate gate;
  gate.close();
  std::atomic<bool> entered{false};
  std::thread entrant([&] {
    Hold hold = gate.enter();
    entered = true;
  });
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(entered) << "entered a closed gate";
  gate.open();
  entrant.join();
  EXPECT_TRUE(entered);
}

TEST(ReloadGate, NobodyIsInsideWhileItIsClosed) {
  ReloadGate gate;
  std::atomic<int> inside{0};
  std::atomic<bool> stop{false};
  std::atomic<long> entries{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 20; ++t) {  // more threads than the gate has counters
    threads.emplace_back([&] {
      while (!stop) {
        Hold hold = gate.enter();
        inside.fetch_add(1);
        entries.fetch_add(1);
        inside.fetch_sub(1);
      }
    });
  }
  int violations = 0;
  for (int round = 0; round < 200; ++round) {
    gate.close();
    if (inside.load() != 0) ++violations;
    std::this_thread::yield();
    if (inside.load() != 0) ++violations;
    gate.open();
    std::this_thread::sleep_for(100us);
  }
  stop = true;
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(violations, 0);
  EXPECT_GT(entries.load(), 200);
}

}  // namespace
}  // namespace authd
