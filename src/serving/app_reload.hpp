// The App requests run on, replaceable while authd serves (SIGHUP,
// `systemctl reload authd`): a reload builds the new App whole (configuration
// re-read, key ring and signing key re-loaded, over the running App's store
// when the configuration names the same one: LMDB must not be opened twice in
// one process) while the running App still serves; only when it is ready does
// it close a gate for new requests, wait for the requests in flight to finish
// with the old App, swap and open the gate again. Requests that arrive
// meanwhile wait at the gate, none is refused. A new App that cannot be built
// changes nothing: the running one goes on serving.
#pragma once

#include <functional>
#include <memory>

#include "program/app.hpp"
#include "serving/lane.hpp"
#include "serving/reload_gate.hpp"

namespace authd {

class ReloadableApp {
 public:
  explicit ReloadableApp(std::unique_ptr<App> app) : app_(std::move(app)) {}

  // prepare_mounted on the current App, the Prepared holding that App (its
  // `hold`) until its answer has run, on whatever thread. Waits while a
  // reload runs.
  Prepared prepare(http::Request&& request);

  // Makes the next App with `make(running App)` while the running one
  // serves; if that fails, returns its error and the running App stays.
  // Otherwise waits for every holder of the running App to let go, puts the
  // new one in its place and destroys the old one.
  using Make = std::function<Result<std::unique_ptr<App>>(const App* running)>;
  Result<void> replace(const Make& make);

  // The current App, for the main thread between reloads (no request holds it then).
  App* current() { return app_.get(); }

 private:
  ReloadGate gate_;
  // Requests read it inside the gate, and replace() changes it only while
  // the gate is closed and no hold is out: the gate orders the two.
  std::unique_ptr<App> app_;
};

}  // namespace authd
