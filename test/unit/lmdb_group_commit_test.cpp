// Group commit in the LMDB store (lib/store/lmdb/group_commit.hpp): writers
// that arrive while a batch commits are committed together by the next one
// (one flush for all), each gets its own outcome, and a write that fails in
// a batch undoes its own changes only.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <map>
#include <thread>
#include <vector>

#include "authd/store.hpp"
#include "store/lmdb/group_commit.hpp"
#include "test_support.hpp"

namespace authd {
namespace {

using lmdb::GroupCommit;
using test::TempStore;
using Outcomes = std::vector<std::optional<Result<void>>>;

void wait_until(const std::function<bool()>& condition) {
  for (int i = 0; i < 5000 && !condition(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_TRUE(condition());
}

TEST(LmdbGroupCommit, WritersArrivingDuringABatchShareTheNextOne) {
  std::promise<void> release_first;
  auto first_released = release_first.get_future().share();
  std::mutex sizes_mutex;
  std::vector<std::size_t> batch_sizes;
  GroupCommit group([&](std::span<const Store::Work* const> works) {
    bool first = false;
    {
      std::lock_guard lock(sizes_mutex);
      batch_sizes.push_back(works.size());
      first = batch_sizes.size() == 1;
    }
    if (first) first_released.wait();  // the flush of the first batch, held open
    return Outcomes(works.size(), Result<void>{});
  });
  const Store::Work work = [](StoreTxn&) -> Result<void> { return {}; };
  std::vector<std::thread> writers;
  writers.emplace_back([&] { EXPECT_TRUE(group.write(work)); });
  wait_until([&] {
    std::lock_guard lock(sizes_mutex);
    return batch_sizes.size() == 1;
  });
  for (int i = 0; i < 3; ++i) writers.emplace_back([&] { EXPECT_TRUE(group.write(work)); });
  wait_until([&] { return group.queued() == 3; });
  release_first.set_value();
  for (auto& writer : writers) writer.join();
  EXPECT_EQ((std::vector<std::size_t>{1, 3}), batch_sizes);
}

TEST(LmdbGroupCommit, EachWriterGetsItsOwnOutcomeAndAWriteToRunAgainRunsAgain) {
  std::map<const Store::Work*, int> runs;
  std::mutex runs_mutex;
  const Store::Work ok = [](StoreTxn&) -> Result<void> { return {}; };
  const Store::Work refused = [](StoreTxn&) -> Result<void> { return {}; };
  const Store::Work again = [](StoreTxn&) -> Result<void> { return {}; };
  GroupCommit group([&](std::span<const Store::Work* const> works) {
    Outcomes outcomes;
    std::lock_guard lock(runs_mutex);
    for (const auto* work : works) {
      const int run = ++runs[work];
      if (work == &refused) outcomes.emplace_back(fail(Errc::conflict, "taken"));
      else if (work == &again && run == 1) outcomes.emplace_back(std::nullopt);
      else outcomes.emplace_back(Result<void>{});
    }
    return outcomes;
  });
  auto a = std::async(std::launch::async, [&] { return group.write(ok); });
  auto b = std::async(std::launch::async, [&] { return group.write(refused); });
  auto c = std::async(std::launch::async, [&] { return group.write(again); });
  EXPECT_TRUE(a.get());
  auto refusal = b.get();
  ASSERT_FALSE(refusal);
  EXPECT_EQ(Errc::conflict, refusal.error().code);
  EXPECT_TRUE(c.get());
  EXPECT_EQ(2, runs[&again]);
  EXPECT_EQ(1, runs[&ok]);
}

// Through the real store: 8 threads write at once, every third write fails
// after writing its entry. Whatever batches formed, the failed writes left
// nothing and every other one is there.
TEST(LmdbGroupCommit, AFailedWriteInABatchUndoesOnlyItself) {
  TempStore store;
  constexpr int kThreads = 8, kWrites = 30;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int n = 0; n < kWrites; ++n) {
        const std::string key = std::to_string(t) + "-" + std::to_string(n);
        const bool fails = n % 3 == 0;
        auto wrote = store->write([&](StoreTxn& txn) -> Result<void> {
          if (auto put = txn.put_entry("group", key, "v", 0); !put) return put;
          if (fails) return fail(Errc::conflict, "refused after writing");
          return {};
        });
        EXPECT_EQ(!fails, wrote.has_value()) << key;
      }
    });
  for (auto& thread : threads) thread.join();
  int present = 0, leaked = 0;
  ASSERT_TRUE(store->read([&](StoreTxn& txn) -> Result<void> {
    for (int t = 0; t < kThreads; ++t)
      for (int n = 0; n < kWrites; ++n) {
        auto value = txn.get_entry("group", std::to_string(t) + "-" + std::to_string(n));
        if (!value) return std::unexpected(value.error());
        if (!*value) continue;
        if (n % 3 == 0) ++leaked;
        else ++present;
      }
    return {};
  }));
  EXPECT_EQ(0, leaked);
  EXPECT_EQ(kThreads * kWrites * 2 / 3, present);
}

}  // namespace
}  // namespace authd
