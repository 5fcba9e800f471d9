#include "serving/logout_sender.hpp"

#include <algorithm>
#include <chrono>

#include "authd/backchannel_logout.hpp"
#include "authd/clock.hpp"
#include "authd/http_client.hpp"
#include "program/app.hpp"
#include "program/log.hpp"
#include "serving/background_thread.hpp"
#include "serving/metrics.hpp"

namespace authd::logout_sender {
namespace {

using namespace std::chrono_literals;

// How often an idle sender looks for logouts other processes queued.
constexpr auto kPoll = 1s;

// One POST: 3 s to connect, 10 s in all, and over a second before the claim
// (backchannel_logout_lease) runs out, so that no other sender can claim the
// logout while this one may still deliver it (a lease ends on a whole
// second: up to one second sooner than claimed + lease).
HttpTimeouts post_timeouts(std::chrono::seconds lease) {
  const auto total = std::min<std::chrono::milliseconds>(10s, lease - 2s);
  return {std::min<std::chrono::milliseconds>(3s, total), total};
}

// The sender's thread (one per process).
BackgroundThread& worker() {
  static BackgroundThread instance;
  return instance;
}

void wait_for(std::chrono::milliseconds pause) { worker().wait_for(pause); }

bool stopping() { return worker().stopping(); }

void audit(App& app, const QueuedLogout& logout, std::string_view outcome, std::string reason) {
  app.core->audit().record({.event = "backchannel_logout", .client = "local", .outcome = std::string(outcome),
                            .reason = "client " + logout.client_id + ", user " + logout.subject + ": " +
                                      std::move(reason)});
}

void drop(App& app, LogoutOutbox& outbox, const QueuedLogout& logout, std::string reason) {
  metrics::logout_dropped();
  audit(app, logout, "dropped", std::move(reason));
  if (auto gone = outbox.done(logout); !gone) log::warn("backchannel logout: cannot delete a logout: " + gone.error().message);
}

// One attempt at `logout`.
void deliver(App& app, LogoutOutbox& outbox, const HttpClient& http, const QueuedLogout& logout) {
  auto client = app.core->oidc_clients().find(logout.client_id);
  if (!client) {
    if (client.error().code == Errc::not_found) return drop(app, outbox, logout, "the client was removed");
    log::warn("backchannel logout: cannot read the client: " + client.error().message);
    if (auto later = outbox.failed(logout, unix_now()); !later) log::warn("backchannel logout: " + later.error().message);
    return;
  }
  if (client->backchannel_logout_uri.empty()) return drop(app, outbox, logout, "the client no longer has a backchannel_logout_uri");
  auto token = sign_logout_token(*app.core->id_token_keys(),
                                 {.issuer = logout.issuer, .audience = logout.client_id, .subject = logout.subject,
                                  .sid = logout.sid, .jti = {}},
                                 unix_now());
  std::string failure;
  if (!token) {
    failure = token.error().message;
  } else {
    auto answer = http.post_form(client->backchannel_logout_uri, {{"logout_token", *token}}, {});
    if (answer && answer->status >= 200 && answer->status < 300) {
      metrics::logout_sent();
      audit(app, logout, "ok", "delivered (HTTP " + std::to_string(answer->status) + ", attempt " +
                                   std::to_string(logout.attempts + 1) + ")");
      if (auto gone = outbox.done(logout); !gone) {
        log::warn("backchannel logout: cannot delete a delivered logout: " + gone.error().message);
      }
      return;
    }
    failure = answer ? "HTTP " + std::to_string(answer->status) : answer.error().message;
  }
  metrics::logout_retried();
  audit(app, logout, "failed", "attempt " + std::to_string(logout.attempts + 1) + ": " + failure + "; will retry");
  if (auto later = outbox.failed(logout, unix_now()); !later) {
    log::warn("backchannel logout: cannot reschedule a logout: " + later.error().message);
  }
}

void run(App& app) {
  const auto& settings = app.core->settings().oidc;
  LogoutOutbox outbox(app.core->store(), settings.backchannel_logout_retry_max);
  const auto lease = settings.backchannel_logout_lease;
  const HttpClient http(post_timeouts(lease));
  while (!stopping()) {
    std::vector<QueuedLogout> gave_up;
    auto claimed = outbox.claim(unix_now(), lease, &gave_up);
    for (const auto& logout : gave_up) {
      metrics::logout_dropped();
      audit(app, logout, "dropped",
            "not delivered after " + std::to_string(logout.attempts) + " attempts (backchannel_logout_max_age)");
    }
    if (!claimed) {
      log::warn("backchannel logout: cannot read the outbox: " + claimed.error().message);
      wait_for(5s);
      continue;
    }
    if (!*claimed) {
      wait_for(kPoll);
      continue;
    }
    deliver(app, outbox, http, **claimed);
  }
}

}  // namespace

void start(App& app) {
  if (!app.core->settings().oidc.provider || !app.core->id_token_keys()) return;
  worker().start([&app] { run(app); });
}

void stop() { worker().stop(); }

void wake() { worker().wake(); }

}  // namespace authd::logout_sender
