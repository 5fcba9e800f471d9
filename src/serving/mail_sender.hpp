// The background mail sender: one thread per authd process (started by
// main after the server, only when smtp_url is set) that claims messages
// from the store's outbox, hands them to the SMTP server and deletes each
// one accepted. A refusal or an outage only delays a message (backoff in
// the outbox); requests never wait for mail. With several processes or
// nodes on one store, each message is claimed by one sender at a time.
#pragma once

namespace authd {
struct App;
}

namespace authd::mail_sender {

void start(App& app);
// Finishes the message in hand, then stops the thread.
void stop();
// A message was queued in this process: look now instead of at the next poll.
void wake();

}  // namespace authd::mail_sender
