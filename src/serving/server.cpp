#include "serving/server.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>

#include "authd/password.hpp"
#include "serving/delayed_answers.hpp"
#include "serving/event_loop.hpp"
#include "http/error_response.hpp"
#include "serving/metrics.hpp"

namespace authd {
namespace {

constexpr std::chrono::milliseconds kLaneIdle{1000};

// A request on its way to a lane: the connection and the work that answers it.
struct LaneJob {
  Lease lease;
  Hold hold;  // what `answer` keeps in use (Prepared::hold)
  std::function<http::Response()> answer;
};

// A FIFO of work for a pool of threads; limit 0 means unbounded.
template <class Job>
class WorkQueue {
 public:
  explicit WorkQueue(std::size_t limit = 0) : limit_(limit) {}

  // Takes the job only if there is room (the job is left untouched otherwise).
  bool push(Job& job) {
    {
      std::lock_guard lock(mutex_);
      if (closed_ || (limit_ && jobs_.size() >= limit_)) return false;
      jobs_.push_back(std::move(job));
    }
    ready_.notify_one();
    return true;
  }

  // The next job; nullopt once closed and drained. After `idle` without
  // work, `on_idle` runs once (outside the lock) before waiting on.
  template <class OnIdle>
  std::optional<Job> pop(std::chrono::milliseconds idle, OnIdle&& on_idle) {
    std::unique_lock lock(mutex_);
    bool idled = false;
    while (!closed_ && jobs_.empty()) {
      if (idled) {
        ready_.wait(lock);
      } else if (!ready_.wait_for(lock, idle, [&] { return closed_ || !jobs_.empty(); })) {
        lock.unlock();
        on_idle();
        lock.lock();
        idled = true;
      }
    }
    if (jobs_.empty()) return std::nullopt;
    Job job = std::move(jobs_.front());
    jobs_.pop_front();
    return job;
  }

  std::optional<Job> pop() {
    return pop(std::chrono::hours(24), [] {});
  }

  // No more jobs are taken; the threads leave once the queue is empty.
  void close() {
    std::lock_guard lock(mutex_);
    closed_ = true;
    ready_.notify_all();
  }

  // Closes and drops the jobs nobody has started (outside the lock: a
  // dropped Lease answers 503).
  void discard() {
    std::deque<Job> dropped;
    {
      std::lock_guard lock(mutex_);
      closed_ = true;
      dropped.swap(jobs_);
      ready_.notify_all();
    }
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Job> jobs_;
  std::size_t limit_;
  bool closed_ = false;
};

// What the web server may open at once when max_connections is 0, told to
// it in FCGI_GET_VALUES_RESULT.
unsigned connection_limit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return 1024;
  return limit.rlim_cur > 128 ? static_cast<unsigned>(limit.rlim_cur - 64) : 64;
}

}  // namespace

struct Server::State {
  int listen_fd;
  ServerOptions options;
  Prepare prepare;
  std::vector<std::unique_ptr<EventLoop>> loops;
  WorkQueue<LaneJob> store_lane;  // unbounded
  WorkQueue<LaneJob> password_lane;
  WorkQueue<LaneJob> upstream_lane;
  // After `loops`: destroyed first, it hands what it still holds to live loops.
  DelayedAnswers delayed;
  std::vector<std::thread> loop_threads;
  std::vector<std::thread> workers;
  std::mutex loop_mutex;
  std::condition_variable loop_done_cv;
  std::size_t loops_done = 0;
  bool running = false;

  State(int fd, ServerOptions o, Prepare p)
      : listen_fd(fd), options(std::move(o)), prepare(std::move(p)), password_lane(options.queue_limit),
        upstream_lane(options.queue_limit) {}

  // On a loop's thread, for every complete request: answers it at once, or
  // queues it for its lane.
  void dispatch(Lease lease) {
    Prepared prepared = prepare(lease.take_request());
    const bool no_thread = prepared.lane == Lane::store && options.workers == 0;
    if (prepared.response || prepared.lane == Lane::direct || prepared.lane == Lane::write ||
        prepared.lane == Lane::read || no_thread) {
      deliver(lease, prepared.take_answer());
      return;
    }
    LaneJob job{std::move(lease), std::move(prepared.hold), std::move(prepared.answer)};
    auto& lane = prepared.lane == Lane::password ? password_lane
                 : prepared.lane == Lane::store  ? store_lane
                                                 : upstream_lane;
    metrics::lane_depth(prepared.lane, +1);  // before the push: a lane thread may pop it at once
    if (!lane.push(job)) {
      metrics::lane_depth(prepared.lane, -1);
      job.lease.answer(http::unrouted_error_response(Error::retry_later(Errc::unavailable, 1, "the server is busy; retry shortly")));
    }
  }

  // Answers now, or hands the answer to `delayed` when it has a not_before.
  void deliver(Lease& lease, http::Response response) {
    if (response.not_before && *response.not_before > DelayedAnswers::Clock::now()) {
      const auto when = *response.not_before;
      delayed.hold(when, [lease = std::move(lease), response = std::move(response)]() mutable { lease.answer(response); });
      return;
    }
    lease.answer(response);
  }
  void lane_loop(WorkQueue<LaneJob>& lane, Lane which) {
    // An idle hashing thread gives argon2's working memory back (see PasswordHasher).
    while (auto job = lane.pop(kLaneIdle, [] { PasswordHasher::release_thread_memory(); })) {
      metrics::lane_busy(which, +1);
      metrics::lane_depth(which, -1);
      http::Response response = job->answer();
      metrics::lane_busy(which, -1);  // before it is sent: never busy and answered at once
      deliver(job->lease, std::move(response));
    }
  }
};

Server::Server(int listen_fd, ServerOptions options, Prepare prepare)
    : state_(std::make_unique<State>(listen_fd, std::move(options), std::move(prepare))) {}

Server::~Server() {
  if (state_->running) stop(std::chrono::milliseconds(0));
}

Result<void> Server::start() {
  State& s = *state_;
  fcgi::Limits& limits = s.options.limits;  // the loops read it by reference
  if (limits.max_connections == 0) limits.max_connections = connection_limit();
  limits.output_limit_bytes = std::max(limits.output_limit_bytes, limits.output_pause_bytes);
  LoopOptions loop_options;
  loop_options.listen_fd = s.listen_fd;
  loop_options.web_server_addrs = s.options.web_server_addrs;
  loop_options.answers_inline = true;  // most requests, the store's threads or not
  // Each loop takes its share of the connection limit (the shares add up to
  // it: the web server is told the whole, FCGI_MAX_CONNS); no loop without one.
  const std::size_t max_conns = limits.max_connections;
  const unsigned loop_count = static_cast<unsigned>(std::min<std::size_t>(std::max(1u, s.options.event_loops), max_conns));
  for (unsigned i = 0; i < loop_count; ++i) {
    loop_options.loop_connection_limit = max_conns / loop_count + (i < max_conns % loop_count ? 1 : 0);
    auto loop = EventLoop::create(limits, loop_options, [&s](Lease lease) { s.dispatch(std::move(lease)); });
    if (!loop) {
      s.loops.clear();
      return fail(loop.error());
    }
    s.loops.push_back(std::move(*loop));
  }
  s.running = true;
  for (auto& loop : s.loops) {
    s.loop_threads.emplace_back([&s, &loop] {
      loop->run();
      std::lock_guard lock(s.loop_mutex);
      ++s.loops_done;
      s.loop_done_cv.notify_all();
    });
  }
  for (unsigned i = 0; i < s.options.workers; ++i) s.workers.emplace_back([&s] { s.lane_loop(s.store_lane, Lane::store); });
  for (unsigned i = 0; i < s.options.hash_workers; ++i) s.workers.emplace_back([&s] { s.lane_loop(s.password_lane, Lane::password); });
  for (unsigned i = 0; i < s.options.upstream_workers; ++i) s.workers.emplace_back([&s] { s.lane_loop(s.upstream_lane, Lane::upstream); });
  return {};
}

bool Server::stop(std::chrono::milliseconds grace) {
  State& s = *state_;
  if (!s.running) return true;
  s.running = false;
  for (auto& loop : s.loops) loop->stop();
  bool in_time = true;
  {
    std::unique_lock lock(s.loop_mutex);
    in_time = s.loop_done_cv.wait_for(lock, grace, [&] { return s.loops_done == s.loops.size(); });
  }
  if (!in_time) {
    // Out of time: queued work is answered 503 and idle connections closed;
    // requests a thread is running finish, and the loops wait for them.
    s.store_lane.discard();
    s.password_lane.discard();
    s.upstream_lane.discard();
    s.delayed.stop();  // held answers go now: the loops wait for them
    for (auto& loop : s.loops) loop->abandon();
  }
  for (auto& thread : s.loop_threads) thread.join();
  s.loop_threads.clear();
  s.store_lane.close();
  s.password_lane.close();
  s.upstream_lane.close();
  for (auto& thread : s.workers) thread.join();
  s.workers.clear();
  return in_time;
}

}  // namespace authd
