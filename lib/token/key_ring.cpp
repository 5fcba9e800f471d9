#include "authd/key_ring.hpp"

#include <ctime>
#include <sstream>

#include "authd/crypto.hpp"
#include "authd/store.hpp"

namespace authd {
namespace {

namespace fs = std::filesystem;

// Sortable by creation: seconds, then randomness.
std::string new_kid() {
  std::ostringstream kid;
  kid << std::hex << ::time(nullptr) << '-' << crypto::random_hex(4);
  return kid.str();
}

bool usable_pem(std::string_view pem, crypto::KeyAlgorithm algorithm) {
  auto key = crypto::KeyPair::from_pem(pem);
  return key && key->algorithm() == algorithm;  // the algorithm is pinned per key
}

// A fresh key of `algorithm` handed to `write(kid, pem)` (which answers a
// Result); the PEM is wiped afterwards. Returns the kid.
template <class Write>
Result<std::string> with_new_key(crypto::KeyAlgorithm algorithm, Write&& write) {
  auto key = crypto::KeyPair::generate(algorithm);
  if (!key) return std::unexpected(key.error());
  auto kid = new_kid();
  std::string pem = key->private_pem();
  auto written = write(std::string_view(kid), std::string_view(pem));
  crypto::wipe(pem.data(), pem.size());
  if (!written) return std::unexpected(written.error());
  return kid;
}

bool same_keys(const KeyRing::Keys& a, const KeyRing::Keys& b) {
  if (a.current != b.current || a.by_kid.size() != b.by_kid.size()) return false;
  for (const auto& [kid, key] : a.by_kid) {
    if (!b.by_kid.contains(kid)) return false;
  }
  return true;
}

}  // namespace

bool is_valid_kid(std::string_view kid) noexcept {
  if (kid.empty() || kid.size() > 64) return false;
  for (unsigned char c : kid) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || c == '-')) return false;
  }
  return true;
}

Result<std::string> KeyRing::rotate(KeyStorage& storage, crypto::KeyAlgorithm algorithm) {
  return with_new_key(algorithm, [&](std::string_view kid, std::string_view pem) { return storage.add_current(kid, pem); });
}

Result<std::vector<std::string>> KeyRing::retire(KeyStorage& storage, std::string_view kid) {
  return storage.retire(kid);
}

Result<std::string> KeyRing::rotate(const fs::path& directory, crypto::KeyAlgorithm algorithm) {
  return rotate(*directory_key_storage(directory), algorithm);
}

Result<std::vector<std::string>> KeyRing::retire(const fs::path& directory, std::string_view kid) {
  return retire(*directory_key_storage(directory), kid);
}

Result<std::shared_ptr<KeyRing>> KeyRing::open(fs::path directory, crypto::KeyAlgorithm algorithm) {
  return open(directory_key_storage(std::move(directory)), algorithm);
}

Result<std::shared_ptr<KeyRing>> KeyRing::open(std::shared_ptr<KeyStorage> storage, crypto::KeyAlgorithm algorithm) {
  auto ring = std::shared_ptr<KeyRing>(new KeyRing(std::move(storage), algorithm));
  if (auto ok = ring->reload_if_changed(true); !ok) {
    if (ok.error().code != Errc::unavailable) return std::unexpected(ok.error());
    // The database is not there yet: no key until a later check reaches it
    // (routes that need the store answer 503 meanwhile anyway).
    ring->keys_ = std::make_shared<const Keys>();
  }
  return ring;
}

Result<std::pair<KeyRing::Keys, std::string>> KeyRing::load() {
  auto snapshot = storage_->load();
  if (!snapshot) return std::unexpected(snapshot.error());
  Keys keys;
  for (auto& [kid, pem] : snapshot->pems) {
    auto key = crypto::KeyPair::from_pem(pem);
    crypto::wipe(pem.data(), pem.size());
    if (!key || key->algorithm() != algorithm_) continue;  // the algorithm is pinned per key
    keys.by_kid.emplace(kid, std::move(*key));
  }
  keys.current = std::move(snapshot->current);
  return std::pair{std::move(keys), std::move(snapshot->stamp)};
}

Result<void> KeyRing::reload_if_changed(bool force) {
  if (!force) {
    auto stamp = storage_->stamp();
    if (!stamp) return std::unexpected(stamp.error());
    std::lock_guard lock(mutex_);
    if (keys_ && !keys_->current.empty() && !stamp->empty() && *stamp == loaded_stamp_) return {};
  }
  std::lock_guard reloading(reload_mutex_);
  auto loaded = load();
  if (!loaded) return std::unexpected(loaded.error());
  bool have_keys = false;
  {
    std::lock_guard lock(mutex_);
    have_keys = keys_ && !keys_->current.empty();
  }
  if (!have_keys && !loaded->first.by_kid.contains(loaded->first.current)) {
    // No usable key yet (first start, or `current` names a key of another
    // algorithm): a new one, made once for every process of the storage.
    const auto algorithm = algorithm_;
    auto made = with_new_key(algorithm, [&](std::string_view kid, std::string_view pem) {
      return storage_->add_current_unless_usable(kid, pem,
                                                 [algorithm](std::string_view p) { return usable_pem(p, algorithm); });
    });
    if (!made) return std::unexpected(made.error());
    loaded = load();
    if (!loaded) return std::unexpected(loaded.error());
    if (!loaded->first.by_kid.contains(loaded->first.current)) {
      return fail(Errc::config, "no usable signing key in " + storage_->where());
    }
  }
  auto& [fresh, stamp] = *loaded;
  std::lock_guard lock(mutex_);
  if (keys_ && same_keys(fresh, *keys_)) {
    loaded_stamp_ = std::move(stamp);
    return {};
  }
  // A `current` naming a key this ring cannot use (another node's
  // algorithm) keeps the keys loaded before.
  if (fresh.by_kid.contains(fresh.current) || !keys_) {
    fresh.version = keys_ ? keys_->version + 1 : 1;
    keys_ = std::make_shared<const Keys>(std::move(fresh));
    version_.store(keys_->version, std::memory_order_release);
  }
  loaded_stamp_ = std::move(stamp);
  return {};
}

std::int64_t KeyRing::version(std::int64_t now) {
  auto seen = last_check_.load(std::memory_order_relaxed);
  // One thread per second checks; the others go on with the keys they have.
  if (seen != now && last_check_.compare_exchange_strong(seen, now, std::memory_order_relaxed)) {
    // On an error the keys loaded before stay in use. A thread that answers
    // from memory only (an event loop, authd/store.hpp's MemoryOnly) cannot
    // check: it leaves this second's check to the next thread that can (its
    // request runs again on one).
    if (auto checked = reload_if_changed(false); !checked && MemoryOnly::refused_here()) {
      last_check_.store(seen, std::memory_order_relaxed);
    }
  }
  return version_.load(std::memory_order_acquire);
}

std::shared_ptr<const KeyRing::Keys> KeyRing::keys(Check check, std::int64_t now) {
  if (check == Check::always) {
    last_check_.store(now, std::memory_order_relaxed);
    (void)reload_if_changed(false);  // on an error the keys loaded before stay in use
  } else {
    (void)version(now);
  }
  std::lock_guard lock(mutex_);
  return keys_;
}

}  // namespace authd
