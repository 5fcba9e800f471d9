// Pushed authorization requests (RFC 9126): a client POSTs its authorization
// request's parameters to /par over its authenticated back channel and sends
// the browser to /authorize with only client_id and the request_uri it got
// back, so that nothing of the request travels through the browser. The
// parameters are kept in the store (namespace "oidc_par", so every node sees
// them) under the SHA-256 of the request_uri's random part.
//
// A request_uri is good for kPushedRequestTtl seconds until the browser first
// brings it to /authorize; from then on it lives as long as a sign-in may
// take (kPushedRequestFlowTtl) so that the sign-in and consent pages can send
// the browser back to it, and it is used up (deleted) when /authorize answers
// the client: one code, or one error, per pushed request (RFC 9126 §4).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "authd/error.hpp"
#include "authd/store.hpp"

namespace authd {

inline constexpr std::int64_t kPushedRequestTtl = 90;
inline constexpr std::int64_t kPushedRequestFlowTtl = 600;
inline constexpr std::string_view kRequestUriPrefix = "urn:ietf:params:oauth:request_uri:";

using RequestParameters = std::map<std::string, std::string, std::less<>>;

class PushedRequests {
 public:
  explicit PushedRequests(Store& store) : store_(store) {}

  // Keeps `parameters` (already validated as /authorize would) for
  // `client_id`; the request_uri to hand back. Errors: storage_full,
  // unavailable, internal.
  Result<std::string> push(std::string_view client_id, const RequestParameters& parameters, std::int64_t now);

  // The parameters pushed as `request_uri` by `client_id`; the first call
  // extends its life to kPushedRequestFlowTtl. Errors: invalid_token
  // (malformed, unknown, expired, used, or pushed by another client),
  // storage errors.
  Result<RequestParameters> open(std::string_view request_uri, std::string_view client_id, std::int64_t now);

  // Replaces the kept parameters (what a step of the flow settled: a fresh
  // sign-in asked for, a consent given). Errors: invalid_token (gone).
  Result<void> update(std::string_view request_uri, const RequestParameters& parameters, std::int64_t now);

  // Uses the request up. Absent: ok.
  Result<void> finish(std::string_view request_uri);

 private:
  Store& store_;
};

}  // namespace authd
