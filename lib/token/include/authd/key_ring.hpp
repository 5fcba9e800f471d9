// The public-key signing keys of token_algorithm = EdDSA | ES256, shared by
// every process through a KeyStorage (authd/key_storage.hpp): a directory
// (<state_dir>/keys, store = lmdb) or the store's entries (store =
// postgresql, so that every node of one database sees the same keys).
// `authctl key rotate` adds a new key and makes it current; `authctl key
// retire` deletes the others. Each process notices a change by the
// storage's stamp (a stat, or one small read): checked before every token it
// issues, and at most once a second when verifying (plus at once when a
// token names a kid it does not know), so a rotation takes effect for new
// tokens immediately and a retirement within a second. Key bytes are never
// logged.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "authd/error.hpp"
#include "authd/key_pair.hpp"
#include "authd/key_storage.hpp"

namespace authd {

class KeyRing {
 public:
  struct Keys {
    std::string current;                                          // kid of the signing key
    std::map<std::string, crypto::KeyPair, std::less<>> by_kid;  // every key that verifies
    std::int64_t version = 0;                                     // changes with every reload
  };

  // Opens the ring in `storage` for `algorithm`, making a first key (once
  // for everyone sharing the storage) when it holds no usable current key.
  // Keys of another algorithm in it are ignored. When the storage cannot be
  // reached now (Errc::unavailable: the database is down at start), the
  // ring opens with no key and every later check tries again. Errors: io,
  // config, and the storage's.
  static Result<std::shared_ptr<KeyRing>> open(std::shared_ptr<KeyStorage> storage, crypto::KeyAlgorithm algorithm);
  // The same on directory_key_storage(directory).
  static Result<std::shared_ptr<KeyRing>> open(std::filesystem::path directory, crypto::KeyAlgorithm algorithm);

  // Operator commands (authctl). rotate: a new key, made current; returns
  // its kid. retire: deletes `kid`, or every key but the current one when
  // empty; never the current key. Returns the deleted kids. Errors: io,
  // unavailable, invalid_input (retiring the current or an unknown key).
  static Result<std::string> rotate(KeyStorage& storage, crypto::KeyAlgorithm algorithm);
  static Result<std::vector<std::string>> retire(KeyStorage& storage, std::string_view kid);
  // The same on directory_key_storage(directory).
  static Result<std::string> rotate(const std::filesystem::path& directory, crypto::KeyAlgorithm algorithm);
  static Result<std::vector<std::string>> retire(const std::filesystem::path& directory, std::string_view kid);

  // The keys as of the last check. `check` = always: look at the storage
  // now (issuing); periodic: at most once a second (verifying). `current`
  // is "" (and by_kid empty) only while the storage has never been reached.
  enum class Check { always, periodic };
  std::shared_ptr<const Keys> keys(Check check, std::int64_t now);

  // The version of the key set, after the periodic check: the verifier's hot
  // path (one atomic load unless a check is due; no lock, no copy).
  std::int64_t version(std::int64_t now);

  crypto::KeyAlgorithm algorithm() const noexcept { return algorithm_; }

 private:
  KeyRing(std::shared_ptr<KeyStorage> storage, crypto::KeyAlgorithm algorithm)
      : storage_(std::move(storage)), algorithm_(algorithm) {}
  Result<void> reload_if_changed(bool force);
  // The storage's keys of this ring's algorithm, with their stamp.
  Result<std::pair<Keys, std::string>> load();

  std::shared_ptr<KeyStorage> storage_;
  crypto::KeyAlgorithm algorithm_;
  std::mutex reload_mutex_;  // one reload at a time (it may read a database)
  std::mutex mutex_;         // keys_ and loaded_stamp_: held only to swap them
  std::shared_ptr<const Keys> keys_;
  std::string loaded_stamp_;
  std::atomic<std::int64_t> last_check_{0};
  std::atomic<std::int64_t> version_{0};
};

}  // namespace authd
