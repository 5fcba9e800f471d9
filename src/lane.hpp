// Where a request runs. Password hashing and calls to identity providers are
// slow, so they run on their own bounded worker pools: a flood of sign-ins
// or a slow provider can never take every thread from guarded requests.
#pragma once

#include <functional>

#include "http/request.hpp"
#include "http/response.hpp"

namespace authd {

enum class Lane {
  direct,    // on the thread that read the request (token checks, records)
  password,  // argon2id: signup, signin
  upstream,  // outgoing HTTP to an identity provider: oauth
};

// A request whose route has been resolved (once): the lane it belongs on and
// the work that answers it. The server knows nothing of routes: it reads a
// request, asks the application to prepare it, and runs `answer` on `lane`.
struct Prepared {
  Lane lane = Lane::direct;
  std::function<http::Response()> answer;  // never throws
};

using Prepare = std::function<Prepared(http::Request)>;

}  // namespace authd
