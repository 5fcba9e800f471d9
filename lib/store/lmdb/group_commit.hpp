// Internal to lib/store/lmdb/: group commit. LMDB has one writer at a time
// and a synced commit waits for the disk (an fsync), so writers that arrive
// while one commits would each wait for a flush of their own. Here they wait
// for the running batch instead, and the next batch takes all of them at
// once: the first waiting writer (the leader) runs every queued write on its
// own thread in one transaction and commits it with one flush, while the
// others sleep until their outcome is known. A lone writer runs a batch of
// one, at the cost of a lock and a nested transaction.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <span>
#include <vector>

#include "authd/error.hpp"
#include "authd/store.hpp"

namespace authd::lmdb {

class GroupCommit {
 public:
  // Runs one batch on the calling thread and gives each write its outcome,
  // in order, or nullopt for a write to be queued again (its work then runs
  // again in a later batch: Store::write allows that).
  using RunBatch = std::function<std::vector<std::optional<Result<void>>>(std::span<const Store::Work* const>)>;

  explicit GroupCommit(RunBatch run) : run_(std::move(run)) {}

  // Store::write's contract: `work` has committed when this returns success,
  // and left nothing when it returns an error.
  Result<void> write(const Store::Work& work);

  // How many writes wait for the next batch (tests).
  std::size_t queued() {
    std::lock_guard lock(mutex_);
    return queue_.size();
  }

 private:
  struct Pending {
    const Store::Work* work;
    std::optional<Result<void>> outcome;
  };

  RunBatch run_;
  std::mutex mutex_;
  std::condition_variable settled_;  // a batch ended, or the leader stepped down
  std::vector<Pending*> queue_;      // waiting for the next batch, oldest first
  bool leading_ = false;             // a thread is running batches
};

}  // namespace authd::lmdb
