// One background thread that sleeps between rounds of work until it is woken,
// a pause runs out, or it is stopped: what the mail sender and the
// back-channel logout sender share (each keeps one, started after the server
// and stopped before the App it works with goes away).
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace authd {

class BackgroundThread {
 public:
  // Runs `body` on a new thread (again after a stop: a reload starts it anew).
  void start(std::function<void()> body);
  // Asks `body` to end (stopping() turns true, a wait ends), then joins it.
  void stop();
  // Ends the current wait at once: work was queued in this process.
  void wake();
  // For `body`: waits up to `pause`, or until woken or stopped.
  void wait_for(std::chrono::milliseconds pause);
  bool stopping();

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  bool stopping_ = false;
  bool woken_ = false;
  std::thread thread_;
};

}  // namespace authd
