#include "serving/background_thread.hpp"

namespace authd {

void BackgroundThread::start(std::function<void()> body) {
  {
    std::lock_guard lock(mutex_);
    stopping_ = false;
  }
  thread_ = std::thread(std::move(body));
}

void BackgroundThread::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void BackgroundThread::wake() {
  {
    std::lock_guard lock(mutex_);
    woken_ = true;
  }
  changed_.notify_all();
}

void BackgroundThread::wait_for(std::chrono::milliseconds pause) {
  std::unique_lock lock(mutex_);
  changed_.wait_for(lock, pause, [&] { return stopping_ || woken_; });
  woken_ = false;
}

bool BackgroundThread::stopping() {
  std::lock_guard lock(mutex_);
  return stopping_;
}

}  // namespace authd
