// The public-key signing keys of token_algorithm = EdDSA | ES256, shared by
// every process through the state directory: <state_dir>/keys/<kid>.pem
// (PKCS#8, mode 0600, directory 0700) and <state_dir>/keys/current (the kid
// that signs new tokens). `authctl key rotate` writes a new key and then
// renames a new `current` into place; `authctl key retire` deletes the
// others. Each process notices a change by the directory's mtime: checked
// before every token it issues, and at most once a second when verifying
// (plus at once when a token names a kid it does not know), so a rotation
// takes effect for new tokens immediately and a retirement within a second.
// Key bytes are never logged.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "authd/error.hpp"
#include "authd/key_pair.hpp"

namespace authd {

class KeyRing {
 public:
  struct Keys {
    std::string current;                                          // kid of the signing key
    std::map<std::string, crypto::KeyPair, std::less<>> by_kid;  // every key that verifies
    std::int64_t version = 0;                                     // changes with every reload
  };

  // Opens `directory` for `algorithm` (creating it 0700, and a first key
  // when it holds none). Keys of another algorithm in it are ignored.
  // Errors: io, config.
  static Result<std::shared_ptr<KeyRing>> open(std::filesystem::path directory, crypto::KeyAlgorithm algorithm);

  // Operator commands (authctl). rotate: a new key, made current; returns
  // its kid. retire: deletes `kid`, or every key but the current one when
  // empty; never the current key. Returns the deleted kids. Errors: io,
  // invalid_input (retiring the current or an unknown key).
  static Result<std::string> rotate(const std::filesystem::path& directory, crypto::KeyAlgorithm algorithm);
  static Result<std::vector<std::string>> retire(const std::filesystem::path& directory, std::string_view kid);

  // The keys as of the last check. `check` = always: look at the directory
  // now (issuing); periodic: at most once a second (verifying).
  enum class Check { always, periodic };
  std::shared_ptr<const Keys> keys(Check check, std::int64_t now);

  // The version of the key set, after the periodic check: the verifier's hot
  // path (one atomic load unless a check is due; no lock, no copy).
  std::int64_t version(std::int64_t now);

  crypto::KeyAlgorithm algorithm() const noexcept { return algorithm_; }

 private:
  KeyRing(std::filesystem::path directory, crypto::KeyAlgorithm algorithm)
      : directory_(std::move(directory)), algorithm_(algorithm) {}
  Result<void> reload_if_changed(bool force);

  std::filesystem::path directory_;
  crypto::KeyAlgorithm algorithm_;
  std::mutex mutex_;
  std::shared_ptr<const Keys> keys_;
  std::int64_t loaded_mtime_ns_ = -1;
  std::atomic<std::int64_t> last_check_{0};
  std::atomic<std::int64_t> version_{0};
};

}  // namespace authd
