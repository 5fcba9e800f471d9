// Persistent storage in one LMDB environment (only lib/store/ includes
// <lmdb.h>). Safe to share between threads of a process and between
// processes: LMDB serialises writers and gives readers snapshots.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "authd/error.hpp"
#include "authd/json.hpp"
#include "authd/user.hpp"

namespace authd {

struct StoreOptions {
  std::filesystem::path directory;        // created 0700 if missing; files are 0600
  std::size_t map_size_bytes = std::size_t{1} << 30;
  bool sync = true;                       // fsync on every commit (durable default)
  unsigned max_readers = 126;
};

// The LMDB environment. Open once per process; UserStore and RecordStore
// borrow it and must not outlive it.
class Database {
 public:
  // Errors: io (directory not creatable/writable, environment not openable).
  static Result<std::unique_ptr<Database>> open(const StoreOptions& options);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  struct Impl;
  Impl& impl() noexcept { return *impl_; }

 private:
  explicit Database(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Users, keyed by username (unique). Each mutation is one write transaction.
class UserStore {
 public:
  explicit UserStore(Database& db) : db_(db) {}

  // Assigns _id and __v = 0. Errors: conflict (username taken; nothing is
  // written), storage_full, internal.
  Result<User> create(const NewUser& user);
  // Error: not_found, internal.
  Result<User> find(std::string_view username) const;
  // Sets the role and bumps __v. Errors: not_found, storage_full, internal.
  Result<User> set_role(std::string_view username, Role role);
  // Replaces the whole record (same username and _id) and bumps __v.
  // Errors: not_found, conflict (if the stored __v differs from
  // user.version, i.e. someone else updated it first), storage_full.
  Result<User> update(const User& user);
  // Errors: not_found, storage_full (LMDB needs free pages even to delete),
  // internal.
  Result<void> remove(std::string_view username);
  Result<std::vector<User>> list() const;

  // Third-party sign-in, in one write transaction. Accounts are linked by
  // provider + subject, never by a bare username. The linked account is
  // updated (fullname/email refreshed when given, role reset to user unless
  // keep_role, __v + 1); without one, a new account (no password, role user)
  // is created and linked under the first free username of: the hint, then
  // "<hint>.<provider>", then "<hint>.<provider>.<n>" (n = 2, 3, ...), so an
  // existing account is never taken over. Errors: storage_full, internal.
  Result<ExternalSignIn> sign_in_external(const ExternalIdentity& identity, bool keep_role);

 private:
  Database& db_;
};

// The demo resource: JSON objects keyed by _id, each carrying `_id`, `__v`
// and `owner` (set by the service; a client cannot set them).
class RecordStore {
 public:
  explicit RecordStore(Database& db) : db_(db) {}

  // `fields` must be a JSON object. Errors: bad_request, storage_full.
  Result<Json> create(std::string_view owner, const Json& fields);
  Result<Json> find(std::string_view id) const;            // not_found
  Result<std::vector<Json>> list() const;
  // The same as JSON text, straight from the store (no parse, no re-encode):
  // one record, or an array of all of them.
  Result<std::string> find_text(std::string_view id) const;  // not_found
  Result<std::string> list_text() const;
  // Replaces the client fields, keeps _id/owner, bumps __v. not_found.
  Result<Json> replace(std::string_view id, const Json& fields);
  Result<void> remove(std::string_view id);                // not_found, storage_full

 private:
  Database& db_;
};

// A new 24-hex-character identifier: 4 bytes of seconds, 5 random bytes per
// process, 3 bytes of counter (the MongoDB ObjectId layout).
std::string new_object_id();

}  // namespace authd
