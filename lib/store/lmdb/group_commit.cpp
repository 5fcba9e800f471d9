#include "group_commit.hpp"

#include <utility>

namespace authd::lmdb {

Result<void> GroupCommit::write(const Store::Work& work) {
  Pending mine{&work, std::nullopt};
  std::unique_lock lock(mutex_);
  queue_.push_back(&mine);
  settled_.wait(lock, [&] { return mine.outcome.has_value() || !leading_; });
  if (mine.outcome) return std::move(*mine.outcome);

  // No batch is running: this thread leads until its own write has an
  // outcome, taking whatever queued meanwhile with it.
  leading_ = true;
  while (!mine.outcome) {
    auto batch = std::exchange(queue_, {});
    lock.unlock();
    std::vector<const Store::Work*> works;
    works.reserve(batch.size());
    for (const auto* pending : batch) works.push_back(pending->work);
    auto outcomes = run_(works);
    lock.lock();
    for (std::size_t i = 0; i < batch.size(); ++i) {
      if (outcomes[i]) batch[i]->outcome = std::move(outcomes[i]);
      else queue_.push_back(batch[i]);  // to run again (after the map grew)
    }
    settled_.notify_all();
  }
  leading_ = false;
  settled_.notify_all();  // a waiting writer leads the next batch
  return std::move(*mine.outcome);
}

}  // namespace authd::lmdb
