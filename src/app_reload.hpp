// The App requests run on, replaceable while authd serves (SIGHUP,
// `systemctl reload authd`): a reload closes a gate for new requests, waits
// for the requests in flight to finish with the old App, builds the new one
// (configuration re-read, store re-opened, key ring re-loaded) and opens the
// gate again. Requests that arrive meanwhile wait at the gate, none is
// refused; the old App is gone before the new one opens the store (LMDB must
// not be opened twice in one process).
#pragma once

#include <functional>
#include <memory>

#include "app.hpp"
#include "lane.hpp"
#include "reload_gate.hpp"

namespace authd {

class ReloadableApp {
 public:
  explicit ReloadableApp(std::unique_ptr<App> app) : app_(std::move(app)) {}

  // prepare_mounted on the current App, the Prepared holding that App (its
  // `hold`) until its answer has run, on whatever thread. Waits while a
  // reload runs.
  Prepared prepare(http::Request&& request);

  // Waits for every holder to let go, destroys the App, then makes the next
  // with `make`; if `make` fails, with `fallback` (the running settings). The
  // error of `make` is returned (the App from `fallback` then serves); when
  // both fail, no App is left and every later request answers 503.
  using Make = std::function<Result<std::unique_ptr<App>>()>;
  Result<void> replace(const Make& make, const Make& fallback);

  // The current App, for the main thread between reloads (no request holds it then).
  App* current() { return app_.get(); }

 private:
  ReloadGate gate_;
  // Requests read it inside the gate, and replace() changes it only while
  // the gate is closed and no hold is out: the gate orders the two.
  std::unique_ptr<App> app_;
};

}  // namespace authd
