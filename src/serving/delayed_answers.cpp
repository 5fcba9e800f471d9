#include "serving/delayed_answers.hpp"

#include <utility>

namespace authd {

DelayedAnswers::DelayedAnswers() : thread_([this] { run(); }) {}

DelayedAnswers::~DelayedAnswers() { stop(); }

void DelayedAnswers::hold(Clock::time_point when, Deliver deliver) {
  {
    std::lock_guard lock(mutex_);
    if (!stopping_ && when > Clock::now()) {
      const bool earliest = held_.empty() || when < held_.begin()->first;
      held_.emplace(when, std::move(deliver));
      if (earliest) changed_.notify_one();
      return;
    }
  }
  deliver();
}

void DelayedAnswers::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ && !thread_.joinable()) return;
    stopping_ = true;
  }
  changed_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void DelayedAnswers::run() {
  std::unique_lock lock(mutex_);
  for (;;) {
    if (held_.empty()) {
      if (stopping_) return;
      changed_.wait(lock);
      continue;
    }
    const auto due = held_.begin()->first;
    if (!stopping_ && due > Clock::now()) {
      changed_.wait_until(lock, due);
      continue;
    }
    // Delivered outside the lock: handing an answer to its connection may
    // take the loop's lock, and hold() may be called meanwhile.
    auto node = held_.extract(held_.begin());
    lock.unlock();
    node.mapped()();
    lock.lock();
  }
}

}  // namespace authd
