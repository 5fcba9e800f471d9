// Answers held until a time without holding a thread while they wait.
// http::Response::not_before asks for it (POST /password/forgot and POST
// /email/verify/resend answer after the same time whatever happened, so that
// timing tells nothing): the lane thread that made the answer goes back to
// work at once, and this holder's one timer thread hands the answer over
// when it is due. Before, the lane thread slept, so four such requests at
// once (upstream_workers) stalled every third-party sign-in meanwhile.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

namespace authd {

class DelayedAnswers {
 public:
  using Clock = std::chrono::steady_clock;
  using Deliver = std::move_only_function<void()>;

  DelayedAnswers();
  ~DelayedAnswers();  // stop()
  DelayedAnswers(const DelayedAnswers&) = delete;
  DelayedAnswers& operator=(const DelayedAnswers&) = delete;

  // Runs `deliver` at `when` on the timer thread; at once, on the calling
  // thread, when `when` has passed or the holder has stopped.
  void hold(Clock::time_point when, Deliver deliver);
  // Delivers everything still held now (a stopping server does not wait for
  // the delays) and ends the timer thread.
  void stop();

 private:
  void run();

  std::mutex mutex_;
  std::condition_variable changed_;
  std::multimap<Clock::time_point, Deliver> held_;  // earliest first; equal times in arrival order
  bool stopping_ = false;
  std::thread thread_;  // last: started once the members above exist
};

}  // namespace authd
