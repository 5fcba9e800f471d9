// The store backends by name (authd/store_backends.hpp): the built-in ones
// and any a program registers. Looked up at start (settings, Core::open).
#include <deque>
#include <mutex>

#include "authd/store_backends.hpp"

namespace authd {
namespace {

struct Registry {
  std::mutex lock;
  std::deque<StoreBackend> backends;  // a deque: found pointers stay valid as backends are added
};

Registry& registry() {
  static Registry* made = [] {
    auto* r = new Registry;  // never destroyed: lookups may come from static destructors
    r->backends.push_back({"lmdb",
                           [](const StoreSettings& s) {
                             LmdbOptions options = s.lmdb;
                             options.map_size_bytes = s.map_size_mb << 20;
                             return open_lmdb_store(options);
                           },
                           false});
    r->backends.push_back({"postgresql", [](const StoreSettings& s) { return open_postgres_store(s.postgres); }, true});
    return r;
  }();
  return *made;
}

}  // namespace

void register_store_backend(StoreBackend backend) {
  auto& r = registry();
  std::lock_guard guard(r.lock);
  for (auto& known : r.backends) {
    if (known.name == backend.name) {
      known = std::move(backend);
      return;
    }
  }
  r.backends.push_back(std::move(backend));
}

const StoreBackend* find_store_backend(std::string_view name) {
  auto& r = registry();
  std::lock_guard guard(r.lock);
  for (const auto& known : r.backends) {
    if (known.name == name) return &known;
  }
  return nullptr;
}

std::vector<std::string> store_backend_names() {
  auto& r = registry();
  std::lock_guard guard(r.lock);
  std::vector<std::string> names;
  for (const auto& known : r.backends) names.push_back(known.name);
  return names;
}

bool shared_store(const StoreSettings& settings) {
  const auto* backend = find_store_backend(settings.backend);
  return backend && backend->shared;
}

Result<std::unique_ptr<Store>> open_store(const StoreSettings& settings) {
  const auto* backend = find_store_backend(settings.backend);
  if (!backend) return fail(Errc::config, "unknown store '" + settings.backend + "'");
  return backend->open(settings);
}

}  // namespace authd
