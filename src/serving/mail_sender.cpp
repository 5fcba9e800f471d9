#include "serving/mail_sender.hpp"

#include <chrono>

#include "program/app.hpp"
#include "authd/clock.hpp"
#include "program/log.hpp"
#include "serving/background_thread.hpp"
#include "serving/metrics.hpp"

namespace authd::mail_sender {
namespace {

using namespace std::chrono_literals;

// How often an idle sender looks for messages other processes queued, and
// how long a claim holds a message (longer than one SMTP attempt, 35 s).
constexpr auto kPoll = 1s;
constexpr std::chrono::seconds kLease{120};

// The sender's thread (one per process).
BackgroundThread& worker() {
  static BackgroundThread instance;
  return instance;
}

void wait_for(std::chrono::milliseconds pause) { worker().wait_for(pause); }

bool stopping() { return worker().stopping(); }

void audit(App& app, const mail::Queued& message, std::string_view outcome, std::string reason) {
  app.core->audit().record({.event = "mail_" + message.kind, .username = message.username, .client = "local",
                            .outcome = std::string(outcome), .reason = std::move(reason)});
}

void run(App& app) {
  const MailSettings& settings = app.core->settings().mail;
  mail::Outbox outbox(app.core->store(), settings);
  const mail::SmtpClient smtp(settings);
  const auto from = mail::parse_mailbox(settings.smtp_from);
  // A server that cannot be reached is not hammered with every queued
  // message in turn: after each such failure the sender pauses, longer each
  // time (250 ms doubling to 5 s), until a message goes through.
  std::chrono::milliseconds pause{0};
  std::uint64_t dropped_seen = 0;
  while (!stopping()) {
    auto claimed = outbox.claim(unix_now(), kLease);
    if (const auto dropped = outbox.dropped_unopenable(); dropped != dropped_seen) {
      log::warn("mail: " + std::to_string(dropped - dropped_seen) +
                " queued message(s) dropped: sealed under another signing key (every node of one store "
                "needs the same signing_key; docs/scaling-out.md)");
      dropped_seen = dropped;
    }
    if (!claimed) {
      log::warn("mail: cannot read the outbox: " + claimed.error().message);
      wait_for(5s);
      continue;
    }
    if (!*claimed) {
      wait_for(kPoll);
      continue;
    }
    const mail::Queued& message = **claimed;
    const auto data = mail::build(message.message, *from, unix_now());
    if (auto sent = smtp.send(*from, message.message.to, data); sent) {
      metrics::mail_sent();
      audit(app, message, "ok", "accepted by the mail server");
      if (auto gone = outbox.sent(message); !gone) log::warn("mail: cannot delete a sent message: " + gone.error().message);
      pause = std::chrono::milliseconds{0};
    } else if (sent.error().code == Errc::not_permitted) {
      // TLS required and not offered: nothing left this process. The
      // message waits (backoff, message_ttl) for an operator to act.
      metrics::mail_plaintext_refused();
      audit(app, message, "refused", "no STARTTLS offered and TLS required; stays in the outbox");
      log::warn("mail: " + sent.error().message);
      if (auto later = outbox.failed(message, unix_now()); !later) {
        log::warn("mail: cannot reschedule a message: " + later.error().message);
      }
      pause = std::min<std::chrono::milliseconds>(std::max<std::chrono::milliseconds>(2 * pause, 250ms), 5s);
      wait_for(pause);
    } else {
      metrics::mail_failed();
      audit(app, message, "failed", "attempt " + std::to_string(message.attempts + 1) + ", will retry");
      log::warn("mail: " + sent.error().message);
      if (auto later = outbox.failed(message, unix_now()); !later) {
        log::warn("mail: cannot reschedule a message: " + later.error().message);
      }
      if (sent.error().code == Errc::unavailable) {
        pause = std::min<std::chrono::milliseconds>(std::max<std::chrono::milliseconds>(2 * pause, 250ms), 5s);
        wait_for(pause);
      }
    }
  }
}

}  // namespace

void start(App& app) {
  if (!app.core->settings().mail.enabled()) return;
  worker().start([&app] { run(app); });
}

void stop() { worker().stop(); }

void wake() { worker().wake(); }

}  // namespace authd::mail_sender
