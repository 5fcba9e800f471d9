#include "server.hpp"

#include <fcgiapp.h>
#include <poll.h>
#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "http/error_response.hpp"
#include "http/fcgi_io.hpp"
#include "authd/crypto.hpp"
#include "authd/password.hpp"
#include "log.hpp"
#include "metrics.hpp"

namespace authd {
namespace {

constexpr int kPollMillis = 200;
constexpr std::chrono::milliseconds kLaneIdle{1000};

using FcgiRequest = std::unique_ptr<FCGX_Request>;

FcgiRequest new_request(int listen_fd) {
  auto request = std::make_unique<FCGX_Request>();
  FCGX_InitRequest(request.get(), listen_fd, FCGI_FAIL_ACCEPT_ON_INTR);
  return request;
}

// Answers that never reached a route (unreadable request, full lane) get an
// X-Request-Id here; routed ones carry theirs from prepare() (routes.cpp).
http::Response with_request_id(http::Response response) {
  response.header("X-Request-Id", crypto::random_hex(8));
  return response;
}

void answer(FCGX_Request& fcgi, const http::Response& response) {
  http::write_response(fcgi, response);
  FCGX_Finish_r(&fcgi);
}

// A request handed from an accepting thread to a lane.
struct Job {
  FcgiRequest fcgi;
  std::function<http::Response()> answer;
};

class JobQueue {
 public:
  explicit JobQueue(std::size_t limit) : limit_(limit) {}

  // Takes the job only if there is room (the job is left untouched otherwise).
  bool push(Job& job) {
    std::lock_guard lock(mutex_);
    if (closed_ || jobs_.size() >= limit_) return false;
    jobs_.push_back(std::move(job));
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

  void close() {
    std::lock_guard lock(mutex_);
    closed_ = true;
    ready_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Job> jobs_;
  std::size_t limit_;
  bool closed_ = false;
};

}  // namespace

struct Server::State {
  int listen_fd;
  ServerOptions options;
  Prepare prepare;
  std::atomic<bool> stopping{false};
  std::mutex accept_mutex;
  JobQueue password_lane;
  JobQueue upstream_lane;
  std::vector<std::thread> acceptors;
  std::vector<std::thread> lane_workers;

  State(int fd, ServerOptions o, Prepare p)
      : listen_fd(fd), options(o), prepare(std::move(p)), password_lane(o.queue_limit), upstream_lane(o.queue_limit) {}

  // Waits (polling, so that a stop is noticed) for a connection, then accepts
  // it. One thread waits at a time. Once stopping, connections the web server
  // already queued on the socket are still taken and answered; only when the
  // queue is empty does the thread return false.
  bool accept_next(FCGX_Request& request) {
    std::lock_guard lock(accept_mutex);
    for (;;) {
      const bool draining = stopping.load();
      pollfd ready{listen_fd, POLLIN, 0};
      const int n = ::poll(&ready, 1, draining ? 0 : kPollMillis);
      if (n < 0 && errno != EINTR) return false;
      if (n <= 0) {
        if (draining) return false;
        continue;
      }
      const int rc = FCGX_Accept_r(&request);
      if (rc == 0) return true;
      if (stopping.load()) return false;  // the socket was shut down under us
      log::warn("accept failed: " + std::string(std::strerror(-rc)));
    }
  }

  void accept_loop() {
    FcgiRequest fcgi = new_request(listen_fd);
    while (accept_next(*fcgi)) {
      auto incoming = http::read_request(*fcgi, options.max_body_bytes);
      if (!incoming) {
        answer(*fcgi, with_request_id(http::error_response(incoming.error())));
        continue;
      }
      Prepared prepared = prepare(std::move(*incoming));
      if (prepared.lane == Lane::direct) {
        answer(*fcgi, prepared.answer());
        continue;
      }
      Job job{std::move(fcgi), std::move(prepared.answer)};
      JobQueue& queue = prepared.lane == Lane::password ? password_lane : upstream_lane;
      if (queue.push(job)) {
        metrics::lane_depth(prepared.lane, +1);
        fcgi = new_request(listen_fd);
      } else {
        fcgi = std::move(job.fcgi);
        answer(*fcgi, with_request_id(http::error_response(
                          Error::retry_later(Errc::unavailable, 1, "the server is busy; retry shortly"))));
      }
    }
    FCGX_Free(fcgi.get(), 1);
  }

  void lane_loop(JobQueue& queue, Lane lane) {
    // An idle hashing thread gives argon2's working memory back (see PasswordHasher).
    while (auto job = queue.pop(kLaneIdle, [] { PasswordHasher::release_thread_memory(); })) {
      metrics::lane_depth(lane, -1);
      answer(*job->fcgi, job->answer());
      FCGX_Free(job->fcgi.get(), 1);  // closes a kept-alive connection too
    }
  }
};

Server::Server(int listen_fd, ServerOptions options, Prepare prepare)
    : state_(std::make_unique<State>(listen_fd, options, std::move(prepare))) {}

Server::~Server() = default;

void Server::start() {
  State& s = *state_;
  for (unsigned i = 0; i < s.options.accept_workers; ++i) s.acceptors.emplace_back([&s] { s.accept_loop(); });
  for (unsigned i = 0; i < s.options.hash_workers; ++i) {
    s.lane_workers.emplace_back([&s] { s.lane_loop(s.password_lane, Lane::password); });
  }
  for (unsigned i = 0; i < s.options.upstream_workers; ++i) {
    s.lane_workers.emplace_back([&s] { s.lane_loop(s.upstream_lane, Lane::upstream); });
  }
}

bool Server::stop(std::chrono::seconds grace) {
  State& s = *state_;
  // A unix socket stops taking new connections at once (the web server sees
  // the backend as down and fails over or answers 503) while the ones already
  // queued stay acceptable; on TCP the same call would reset them, so there we
  // only stop polling. libfcgi is told last: its accept refuses to run once
  // told, and the queue must be drained first.
  s.stopping = true;  // first, so that the wake-up below is read as "drain"
  sockaddr_storage address{};
  socklen_t length = sizeof address;
  if (::getsockname(s.listen_fd, reinterpret_cast<sockaddr*>(&address), &length) == 0 &&
      address.ss_family == AF_UNIX) {
    ::shutdown(s.listen_fd, SHUT_RD);
  }
  // Join on a helper thread so that the grace period can be enforced.
  std::mutex done_mutex;
  std::condition_variable done_cv;
  bool done = false;
  std::thread joiner([&] {
    for (auto& thread : s.acceptors) thread.join();
    FCGX_ShutdownPending();
    s.password_lane.close();  // queued jobs are still answered
    s.upstream_lane.close();
    for (auto& thread : s.lane_workers) thread.join();
    std::lock_guard lock(done_mutex);
    done = true;
    done_cv.notify_all();
  });
  std::unique_lock lock(done_mutex);
  if (!done_cv.wait_for(lock, grace, [&] { return done; })) {
    joiner.detach();
    return false;
  }
  lock.unlock();
  joiner.join();
  return true;
}

}  // namespace authd
