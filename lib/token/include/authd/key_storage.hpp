// Where the signing keys of a KeyRing (token_algorithm = EdDSA | ES256) are
// kept, behind one small interface with two implementations:
//
//   - a directory, shared by the processes of one machine (store = lmdb):
//     <dir>/<kid>.pem (PKCS#8, 0600; the directory 0700) and <dir>/current;
//   - the Store's entries, shared by every node of one database
//     (store = postgresql): namespace "signing_keys" (key = kid, value = the
//     PKCS#8 PEM) and namespace "signing_key_ring", entry "current"
//     ("<generation> <kid>", the generation counting every change).
//
// A storage holds key bytes only as PEM text; it never logs them, and its
// error messages name kids and places, never bytes.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "authd/error.hpp"

namespace authd {

class Store;

class KeyStorage {
 public:
  struct Snapshot {
    std::string stamp;    // as stamp() said when this was read
    std::string current;  // the kid that signs new tokens ("" when none)
    std::vector<std::pair<std::string, std::string>> pems;  // kid -> PKCS#8 PEM; the reader wipes them
  };
  // Whether the PEM of the current key is a key the ring can sign with.
  using Usable = std::function<bool(std::string_view pem)>;

  virtual ~KeyStorage() = default;

  // Where the keys are, for messages: a path, or "the postgresql store".
  virtual std::string where() const = 0;

  // A short text that changes whenever a key is added or removed or another
  // one becomes current: a stat() of the directory, one small read of the
  // store. "" when it cannot tell (a directory changed within its timestamp
  // granularity): read everything again.
  virtual Result<std::string> stamp() = 0;

  // Every key and the current kid, read together. Errors: io, unavailable.
  virtual Result<Snapshot> load() = 0;

  // Adds `pem` as key `kid` and makes it current (`authctl key rotate`).
  virtual Result<void> add_current(std::string_view kid, std::string_view pem) = 0;

  // The first key, atomically for every process sharing the storage: unless
  // the current key exists and is `usable`, adds `pem` as `kid` and makes it
  // current. Two nodes starting at once make one current key, not two.
  // Returns whether it added the key.
  virtual Result<bool> add_current_unless_usable(std::string_view kid, std::string_view pem, const Usable& usable) = 0;

  // Deletes key `kid`, or every key but the current one when `kid` is empty;
  // never the current key. Returns the deleted kids. Errors: invalid_input
  // (the current key, or no key `kid`), io, unavailable.
  virtual Result<std::vector<std::string>> retire(std::string_view kid) = 0;
};

// A kid as authd makes them: 1 to 64 of [0-9a-z-] (safe as a file name).
bool is_valid_kid(std::string_view kid) noexcept;

// The directory storage (created 0700 when the first key is written).
std::shared_ptr<KeyStorage> directory_key_storage(std::filesystem::path directory);

// The storage in `store`'s entries; `store` must outlive it. `prefix` names
// its namespaces ("signing": the token keys, "id_token_signing": the keys of
// the OpenID provider's ID tokens).
std::shared_ptr<KeyStorage> store_key_storage(Store& store, std::string_view prefix = "signing");

}  // namespace authd
