// Process-wide counters for GET /metrics (Prometheus text format). Each
// authd process counts its own requests; a scraper sums over processes.
// Cheap enough for every request: each thread counts requests by route and
// status in its own shard (summed when /metrics is rendered), atomics for
// the rest.
#pragma once

#include <string>
#include <string_view>

#include "serving/lane.hpp"

namespace authd {
struct App;
}

namespace authd::metrics {

// One answered request: its route pattern ("/records/{id}", "unmatched"),
// status and time from routing to the answer being ready.
void request_done(std::string_view route, int status, double seconds);
// Password sign-ins by outcome: ok, failed, throttled.
void signin(std::string_view outcome);
// Requests refused by the sign-in throttle (429).
void throttled();
// Mail handed to the SMTP server (accepted), or attempts that failed (retried later).
void mail_sent();
void mail_failed();
// A message not sent: TLS was required and the server offered none (it stays queued).
void mail_plaintext_refused();
// Back-channel logout tokens: delivered (2xx), attempts that failed (retried
// later), and logouts given up (backchannel_logout_max_age) or pointless (client gone).
void logout_sent();
void logout_retried();
void logout_dropped();
// Invitations through the API: created, accepted, revoked (Events::invitation;
// authctl's are not counted: its Core has no events observer).
void invitation(std::string_view event);
// Jobs waiting in a lane's queue (+1 queued, -1 taken).
void lane_depth(Lane lane, int delta);
// Lane threads working out an answer (+1 when one takes a job, -1 once the
// answer is made, before it is sent).
void lane_busy(Lane lane, int delta);

// A read tried from the store's memory on an event loop (store =
// postgresql): answered there, or sent on to the store threads.
void read_from_memory(bool answered);

// The whole exposition, store and token-cache figures included.
std::string render(App& app);
// Its first part: the requests every thread counted, by route and status,
// and their latency histograms.
std::string render_requests();

}  // namespace authd::metrics
