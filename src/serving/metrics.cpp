#include "serving/metrics.hpp"

#include <array>
#include <atomic>
#include <cstdio>
#include <deque>
#include <map>
#include <mutex>

#include "program/app.hpp"

namespace authd::metrics {
namespace {

// Seconds; chosen around argon2id (~50-100 ms) and token checks (~10 us).
constexpr std::array<double, 12> kBuckets{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
                                          0.05,   0.1,   0.25,   0.5,   1.0,  2.5};

struct Histogram {
  std::array<std::uint64_t, kBuckets.size()> buckets{};  // non-cumulative; summed when rendered
  std::uint64_t count = 0;
  double sum = 0;
};

// Requests by route: the latency histogram and the count of each status.
struct RouteCounts {
  Histogram latency;
  std::map<int, std::uint64_t> statuses;
};
using RequestCounts = std::map<std::string, RouteCounts, std::less<>>;

// The requests one thread answered. Each thread counts into its own shard,
// so event loops never write a cache line another loop writes; a shard's
// mutex is taken by its thread and by a scrape only. A shard outlives its
// thread (what it counted stays in the totals) and is taken over by the next
// thread that starts.
struct RequestShard {
  std::mutex mutex;
  RequestCounts routes;
  bool taken = false;  // guarded by Registry::shards_mutex
};

struct Registry {
  std::mutex shards_mutex;
  std::deque<RequestShard> shards;  // a deque: shards never move
  std::mutex mutex;
  std::map<std::string, std::uint64_t, std::less<>> signins;  // by outcome
  std::atomic<std::uint64_t> throttled{0};
  std::atomic<std::uint64_t> mail_sent{0};
  std::atomic<std::uint64_t> mail_failed{0};
  std::atomic<std::uint64_t> mail_plaintext_refused{0};
  std::atomic<std::uint64_t> logout_sent{0};
  std::atomic<std::uint64_t> logout_retried{0};
  std::atomic<std::uint64_t> logout_dropped{0};
  std::atomic<long> password_queue{0};
  std::atomic<long> upstream_queue{0};
  std::atomic<long> password_busy{0};
  std::atomic<long> upstream_busy{0};
  std::atomic<long> store_queue{0};
  std::atomic<long> store_busy{0};
  std::atomic<std::uint64_t> reads_answered_from_memory{0};
  std::atomic<std::uint64_t> reads_sent_to_store{0};
  std::array<std::atomic<std::uint64_t>, 3> invitations{};  // created, accepted, revoked
};

constexpr std::array<std::string_view, 3> kInvitationEvents{"created", "accepted", "revoked"};

Registry& registry() {
  static Registry instance;
  return instance;
}

// This thread's shard, taken on its first request and given back when it ends.
class ShardOfThisThread {
 public:
  ShardOfThisThread() {
    Registry& r = registry();
    std::lock_guard lock(r.shards_mutex);
    for (auto& candidate : r.shards) {
      if (!candidate.taken) {
        shard_ = &candidate;
        break;
      }
    }
    if (shard_ == nullptr) shard_ = &r.shards.emplace_back();
    shard_->taken = true;
  }
  ~ShardOfThisThread() {
    std::lock_guard lock(registry().shards_mutex);
    shard_->taken = false;
  }
  ShardOfThisThread(const ShardOfThisThread&) = delete;
  ShardOfThisThread& operator=(const ShardOfThisThread&) = delete;

  RequestShard& get() noexcept { return *shard_; }

 private:
  RequestShard* shard_ = nullptr;
};

RequestShard& shard_of_this_thread() {
  thread_local ShardOfThisThread shard;
  return shard.get();
}

void add(RouteCounts& into, const RouteCounts& from) {
  for (std::size_t i = 0; i < kBuckets.size(); ++i) into.latency.buckets[i] += from.latency.buckets[i];
  into.latency.count += from.latency.count;
  into.latency.sum += from.latency.sum;
  for (const auto& [status, count] : from.statuses) into.statuses[status] += count;
}

// Every shard's counts, summed.
RequestCounts request_totals() {
  Registry& r = registry();
  RequestCounts totals;
  std::lock_guard shards_lock(r.shards_mutex);
  for (auto& shard : r.shards) {
    std::lock_guard lock(shard.mutex);
    for (const auto& [route, counts] : shard.routes) {
      auto found = totals.find(route);
      if (found == totals.end()) found = totals.emplace(route, RouteCounts{}).first;
      add(found->second, counts);
    }
  }
  return totals;
}

std::string number(double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%.9g", value);
  return text;
}

void header(std::string& out, std::string_view name, std::string_view type, std::string_view help) {
  out.append("# HELP ").append(name).append(" ").append(help).append("\n");
  out.append("# TYPE ").append(name).append(" ").append(type).append("\n");
}

}  // namespace

void request_done(std::string_view route, int status, double seconds) {
  RequestShard& shard = shard_of_this_thread();
  std::lock_guard lock(shard.mutex);
  auto found = shard.routes.find(route);
  if (found == shard.routes.end()) found = shard.routes.emplace(std::string(route), RouteCounts{}).first;
  RouteCounts& counts = found->second;
  ++counts.statuses[status];
  Histogram& h = counts.latency;
  for (std::size_t i = 0; i < kBuckets.size(); ++i) {
    if (seconds <= kBuckets[i]) {
      ++h.buckets[i];
      break;
    }
  }
  ++h.count;
  h.sum += seconds;
}

void signin(std::string_view outcome) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  auto found = r.signins.find(outcome);
  if (found == r.signins.end()) found = r.signins.emplace(std::string(outcome), 0).first;
  ++found->second;
}

void throttled() { registry().throttled.fetch_add(1, std::memory_order_relaxed); }

void mail_sent() { registry().mail_sent.fetch_add(1, std::memory_order_relaxed); }
void mail_failed() { registry().mail_failed.fetch_add(1, std::memory_order_relaxed); }
void mail_plaintext_refused() { registry().mail_plaintext_refused.fetch_add(1, std::memory_order_relaxed); }
void logout_sent() { registry().logout_sent.fetch_add(1, std::memory_order_relaxed); }
void logout_retried() { registry().logout_retried.fetch_add(1, std::memory_order_relaxed); }
void logout_dropped() { registry().logout_dropped.fetch_add(1, std::memory_order_relaxed); }

void lane_depth(Lane lane, int delta) {
  Registry& r = registry();
  if (lane == Lane::password) r.password_queue.fetch_add(delta, std::memory_order_relaxed);
  else if (lane == Lane::upstream) r.upstream_queue.fetch_add(delta, std::memory_order_relaxed);
  else if (lane == Lane::store) r.store_queue.fetch_add(delta, std::memory_order_relaxed);
}

void lane_busy(Lane lane, int delta) {
  Registry& r = registry();
  if (lane == Lane::password) r.password_busy.fetch_add(delta, std::memory_order_relaxed);
  else if (lane == Lane::upstream) r.upstream_busy.fetch_add(delta, std::memory_order_relaxed);
  else if (lane == Lane::store) r.store_busy.fetch_add(delta, std::memory_order_relaxed);
}

void read_from_memory(bool answered) {
  Registry& r = registry();
  (answered ? r.reads_answered_from_memory : r.reads_sent_to_store).fetch_add(1, std::memory_order_relaxed);
}

void invitation(std::string_view event) {
  for (std::size_t i = 0; i < kInvitationEvents.size(); ++i) {
    if (kInvitationEvents[i] == event) registry().invitations[i].fetch_add(1, std::memory_order_relaxed);
  }
}

std::string render_requests() {
  std::string out;
  const RequestCounts requests = request_totals();
  header(out, "authd_http_requests_total", "counter", "Requests answered, by route pattern and status.");
  for (const auto& [route, counts] : requests) {
    for (const auto& [status, count] : counts.statuses) {
      out += "authd_http_requests_total{route=\"" + route + "\",status=\"" + std::to_string(status) + "\"} " +
             std::to_string(count) + "\n";
    }
  }
  header(out, "authd_http_request_duration_seconds", "histogram",
         "Time from routing a request to its answer, by route pattern.");
  for (const auto& [route, counts] : requests) {
    const Histogram& h = counts.latency;
    std::uint64_t cumulative = 0;
    for (std::size_t i = 0; i < kBuckets.size(); ++i) {
      cumulative += h.buckets[i];
      out += "authd_http_request_duration_seconds_bucket{route=\"" + route + "\",le=\"" + number(kBuckets[i]) +
             "\"} " + std::to_string(cumulative) + "\n";
    }
    out += "authd_http_request_duration_seconds_bucket{route=\"" + route + "\",le=\"+Inf\"} " +
           std::to_string(h.count) + "\n";
    out += "authd_http_request_duration_seconds_sum{route=\"" + route + "\"} " + number(h.sum) + "\n";
    out += "authd_http_request_duration_seconds_count{route=\"" + route + "\"} " + std::to_string(h.count) + "\n";
  }
  return out;
}

std::string render(App& app) {
  Registry& r = registry();
  std::string out = render_requests();
  {
    std::lock_guard lock(r.mutex);
    header(out, "authd_signins_total", "counter", "Password sign-ins by outcome (ok, failed, throttled).");
    for (const auto& outcome : {"ok", "failed", "throttled"}) {
      const auto found = r.signins.find(std::string_view(outcome));
      out += std::string("authd_signins_total{outcome=\"") + outcome + "\"} " +
             std::to_string(found == r.signins.end() ? 0 : found->second) + "\n";
    }
  }
  header(out, "authd_throttled_requests_total", "counter", "Requests refused by the sign-in throttle (429).");
  out += "authd_throttled_requests_total " + std::to_string(r.throttled.load()) + "\n";
  // Busy before queued: a job moving from the queue to a thread while this
  // renders is missed, never counted twice (t_shutdown_inflight.sh adds them).
  header(out, "authd_lane_busy", "gauge", "Requests a lane thread is working on, by lane.");
  out += "authd_lane_busy{lane=\"password\"} " + std::to_string(r.password_busy.load()) + "\n";
  out += "authd_lane_busy{lane=\"upstream\"} " + std::to_string(r.upstream_busy.load()) + "\n";
  out += "authd_lane_busy{lane=\"store\"} " + std::to_string(r.store_busy.load()) + "\n";
  header(out, "authd_lane_queue_depth", "gauge", "Requests waiting for a worker, by lane.");
  out += "authd_lane_queue_depth{lane=\"password\"} " + std::to_string(r.password_queue.load()) + "\n";
  out += "authd_lane_queue_depth{lane=\"upstream\"} " + std::to_string(r.upstream_queue.load()) + "\n";
  out += "authd_lane_queue_depth{lane=\"store\"} " + std::to_string(r.store_queue.load()) + "\n";
  header(out, "authd_reads_from_memory_total", "counter",
         "Reads tried on an event loop from the store's memory (store = postgresql): answered there, or sent on "
         "to the store threads because the store would have waited on the network.");
  out += "authd_reads_from_memory_total{outcome=\"answered\"} " + std::to_string(r.reads_answered_from_memory.load()) + "\n";
  out += "authd_reads_from_memory_total{outcome=\"store\"} " + std::to_string(r.reads_sent_to_store.load()) + "\n";
  header(out, "authd_mail_sent_total", "counter", "Messages this process handed to the SMTP server (accepted).");
  out += "authd_mail_sent_total " + std::to_string(r.mail_sent.load()) + "\n";
  header(out, "authd_mail_failed_total", "counter", "Delivery attempts of this process that failed (retried later).");
  out += "authd_mail_failed_total " + std::to_string(r.mail_failed.load()) + "\n";
  header(out, "authd_mail_plaintext_refused_total", "counter",
         "Delivery attempts of this process not made because the mail server offered no STARTTLS and is not on "
         "loopback (smtp_allow_plaintext is off): the message stays in the outbox.");
  out += "authd_mail_plaintext_refused_total " + std::to_string(r.mail_plaintext_refused.load()) + "\n";
  if (app.core->settings().mail.enabled()) {
    if (auto depth = mail::Outbox(app.core->store(), app.core->settings().mail).depth()) {
      header(out, "authd_mail_outbox_depth", "gauge", "Messages waiting in the outbox (every node's).");
      out += "authd_mail_outbox_depth " + std::to_string(*depth) + "\n";
    }
  }
  if (app.core->settings().oidc.provider) {
    header(out, "authd_backchannel_logout_total", "counter",
           "Back-channel logout tokens of this process, by outcome: sent (2xx), retried (failed, tried again later), "
           "dropped (given up after backchannel_logout_max_age, or the client is gone).");
    out += "authd_backchannel_logout_total{outcome=\"sent\"} " + std::to_string(r.logout_sent.load()) + "\n";
    out += "authd_backchannel_logout_total{outcome=\"retried\"} " + std::to_string(r.logout_retried.load()) + "\n";
    out += "authd_backchannel_logout_total{outcome=\"dropped\"} " + std::to_string(r.logout_dropped.load()) + "\n";
    if (auto depth = LogoutOutbox(app.core->store(), app.core->settings().oidc.backchannel_logout_retry_max).depth()) {
      header(out, "authd_backchannel_logout_outbox_depth", "gauge", "Logout tokens waiting to be delivered (every node's).");
      out += "authd_backchannel_logout_outbox_depth " + std::to_string(*depth) + "\n";
    }
  }
  header(out, "authd_invitations_total", "counter", "Invitations of this process, by event (created, accepted, revoked).");
  for (std::size_t i = 0; i < kInvitationEvents.size(); ++i) {
    out += "authd_invitations_total{event=\"" + std::string(kInvitationEvents[i]) + "\"} " +
           std::to_string(r.invitations[i].load()) + "\n";
  }
  const auto cache = app.core->tokens().cache_counts();
  header(out, "authd_token_cache_lookups_total", "counter", "Verified-token cache lookups, by result.");
  out += "authd_token_cache_lookups_total{result=\"hit\"} " + std::to_string(cache.hits) + "\n";
  out += "authd_token_cache_lookups_total{result=\"miss\"} " + std::to_string(cache.misses) + "\n";
  header(out, "authd_audit_write_failures_total", "counter", "Audit lines that could not be written.");
  out += "authd_audit_write_failures_total " + std::to_string(app.core->audit().write_failures()) + "\n";
  if (auto stats = app.core->store().stats()) {
    header(out, "authd_store_users", "gauge", "Users in the store.");
    out += "authd_store_users " + std::to_string(stats->users) + "\n";
    header(out, "authd_store_used_bytes", "gauge", "Bytes the store uses (LMDB: pages in use).");
    out += "authd_store_used_bytes " + std::to_string(stats->bytes_used) + "\n";
    header(out, "authd_store_capacity_bytes", "gauge", "Bytes the store may grow to (LMDB map size; 0 = unbounded).");
    out += "authd_store_capacity_bytes " + std::to_string(stats->bytes_capacity) + "\n";
  }
  return out;
}

}  // namespace authd::metrics
