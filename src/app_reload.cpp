#include "app_reload.hpp"

#include "base_path.hpp"
#include "http/error_response.hpp"

namespace authd {

std::shared_ptr<App> ReloadableApp::acquire() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [this] { return !reloading_; });
  if (!app_) return nullptr;
  ++holders_;
  // Not an owner: the deleter only counts the holder out.
  return std::shared_ptr<App>(app_.get(), [this](App*) { release(); });
}

void ReloadableApp::release() {
  std::lock_guard lock(mutex_);
  if (--holders_ == 0) changed_.notify_all();
}

Prepared ReloadableApp::prepare(http::Request request) {
  auto app = acquire();
  if (!app) {
    return {Lane::direct, [] {
              return http::unrouted_error_response(
                  Error::retry_later(Errc::unavailable, 5, "authd could not reload its configuration"));
            }};
  }
  Prepared prepared = prepare_mounted(*app, std::move(request));
  prepared.answer = [app, answer = std::move(prepared.answer)] { return answer(); };
  return prepared;
}

Result<void> ReloadableApp::replace(const Make& make, const Make& fallback) {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [this] { return !reloading_; });
  reloading_ = true;
  changed_.wait(lock, [this] { return holders_ == 0; });
  app_.reset();
  Result<void> outcome;
  if (auto next = make()) {
    app_ = std::move(*next);
  } else {
    outcome = fail(next.error());
    if (auto previous = fallback()) app_ = std::move(*previous);
  }
  reloading_ = false;
  changed_.notify_all();
  return outcome;
}

}  // namespace authd
