// Where a request runs. Password hashing and calls to identity providers are
// slow, so they run on their own bounded worker pools: a flood of sign-ins
// or a slow provider can never take every thread from guarded requests. A
// store that waits on the network (PostgreSQL) is never waited for on an
// event loop, nor is a commit that waits on the disk: what needs them runs
// on the store threads.
#pragma once

#include <functional>
#include <optional>
#include <utility>

#include "http/request.hpp"
#include "http/response.hpp"

namespace authd {

enum class Lane {
  direct,    // on the thread that read the request (token checks, records);
             // on the store threads when the store waits on the network
  write,     // as direct, for a route that commits to the store: also on the
             // store threads when a commit waits on the disk (LMDB with
             // sync_writes), so that an event loop never waits for a flush
             // and writes arriving together share one (group commit)
  read,      // as direct; when the store waits on the network, tried on the
             // thread that read it from the store's memory (authd/store.hpp's
             // MemoryOnly), and run again on the store threads only when the
             // store would have to wait: guarded and capability reads
  password,  // argon2id: signup, signin
  upstream,  // outgoing HTTP to an identity provider: oauth
  store,     // the store threads (set by the router, never in the route table)
};

// Something an answer keeps in use until it has run (the App it runs on,
// see ReloadableApp): `release(arg)` once, when the hold is dropped. A plain
// function pointer, so that holding costs no allocation on the request path.
class Hold {
 public:
  Hold() = default;
  Hold(void (*release)(void*), void* arg) noexcept : release_(release), arg_(arg) {}
  Hold(Hold&& other) noexcept : release_(std::exchange(other.release_, nullptr)), arg_(other.arg_) {}
  Hold& operator=(Hold&& other) noexcept {
    if (this != &other) {
      reset();
      release_ = std::exchange(other.release_, nullptr);
      arg_ = other.arg_;
    }
    return *this;
  }
  ~Hold() { reset(); }
  void reset() noexcept {
    if (auto release = std::exchange(release_, nullptr)) release(arg_);
  }
  explicit operator bool() const noexcept { return release_ != nullptr; }

 private:
  void (*release_)(void*) = nullptr;
  void* arg_ = nullptr;
};

// A request whose route has been resolved (once): the lane it belongs on and
// the work that answers it. The server knows nothing of routes: it reads a
// request, asks the application to prepare it, and runs `answer` on `lane`.
// A request for the direct lane may come answered already: prepare ran on
// the thread that answers it anyway, so it answered on the spot instead of
// building a job (`response` set, `answer` empty).
struct Prepared {
  Lane lane = Lane::direct;
  Hold hold;                               // dropped after `answer` (declared first: destroyed last)
  std::function<http::Response()> answer;  // never throws
  std::optional<http::Response> response;  // the answer, when prepare gave it at once

  // The answer: the one given at once, else what running `answer` gives.
  http::Response take_answer() { return response ? std::move(*response) : answer(); }
};

using Prepare = std::function<Prepared(http::Request&&)>;

}  // namespace authd
