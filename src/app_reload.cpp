#include "app_reload.hpp"

#include "base_path.hpp"
#include "http/error_response.hpp"

namespace authd {

namespace {

Prepared refused_without_app() {
  Prepared refused;
  refused.response = http::unrouted_error_response(
      Error::retry_later(Errc::unavailable, 5, "authd could not reload its configuration"));
  return refused;
}

}  // namespace

Prepared ReloadableApp::prepare(http::Request&& request) {
  Hold hold = gate_.enter();
  App* app = app_.get();
  if (!app) return refused_without_app();  // a prvalue: `prepared` below is returned in place
  Prepared prepared = prepare_mounted(*app, std::move(request));
  prepared.hold = std::move(hold);
  return prepared;
}

Result<void> ReloadableApp::replace(const Make& make, const Make& fallback) {
  gate_.close();
  app_.reset();
  Result<void> outcome;
  if (auto next = make()) {
    app_ = std::move(*next);
  } else {
    outcome = fail(next.error());
    if (auto previous = fallback()) app_ = std::move(*previous);
  }
  gate_.open();
  return outcome;
}

}  // namespace authd
