#include "serving/app_reload.hpp"

#include <utility>

#include "http/base_path.hpp"
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

Result<void> ReloadableApp::replace(const Make& make) {
  // Built before anything is retired: the main thread is the only one that
  // changes app_, so reading it here without the gate is safe.
  auto next = make(app_.get());
  if (!next) return fail(next.error());
  gate_.close();
  std::unique_ptr<App> retired = std::exchange(app_, std::move(*next));
  gate_.open();
  return {};  // `retired` goes here, its requests all answered
}

}  // namespace authd
