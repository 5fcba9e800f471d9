// The back-channel logout sender: one thread per authd process (started by
// main after the server, only with oidc_provider) that claims logouts from
// the store's outbox (authd/backchannel_logout.hpp), signs a fresh logout
// token for each attempt and POSTs it (logout_token=..., form-encoded) to the
// client's backchannel_logout_uri. A 2xx deletes it; anything else only
// delays it (backoff in the outbox) until backchannel_logout_max_age, when
// it is dropped. Sign-outs never wait for it. With several processes or
// nodes on one store, each logout is claimed by one sender at a time.
// Every outcome is an audit line `backchannel_logout` and a count in /metrics.
#pragma once

namespace authd {
struct App;
}

namespace authd::logout_sender {

void start(App& app);
// Finishes the logout in hand, then stops the thread.
void stop();
// A logout was queued in this process: look now instead of at the next poll.
void wake();

}  // namespace authd::logout_sender
