// Internal to lib/store/lmdb/: the only header that includes <lmdb.h>.
#pragma once

#include <lmdb.h>

#include <string>
#include <string_view>
#include <utility>

#include <filesystem>
#include <memory>

#include "authd/error.hpp"
#include "authd/store_backends.hpp"

namespace authd::lmdb {

// The environment and its tables. Closed (after a final sync) on destruction.
struct Environment {
  MDB_env* env = nullptr;
  MDB_dbi users = 0;
  MDB_dbi records = 0;
  MDB_dbi links = 0;    // "provider:subject" -> username
  MDB_dbi entries = 0;  // namespace '\0' key -> i64 expires_at (LE) + value
  MDB_dbi users_by_email = 0;  // the email index (email_index.hpp)
  std::filesystem::path directory;
  Environment() = default;
  Environment(const Environment&) = delete;
  Environment& operator=(const Environment&) = delete;
  ~Environment() {
    if (!env) return;
    mdb_env_sync(env, 1);  // a clean stop is durable even with sync_writes = false
    mdb_env_close(env);
  }
};

// Opens (creating as needed) the environment in options.directory, with a
// map of options.initial_map_bytes (or the data file's size, if larger).
// Errors: io (directory not creatable/writable, environment not openable).
Result<std::unique_ptr<Environment>> open_environment(const LmdbOptions& options);

// LMDB's status codes as our errors.
inline Error lmdb_error(int rc, std::string_view what) {
  switch (rc) {
    case MDB_NOTFOUND: return Error{Errc::not_found, std::string(what) + ": not found"};
    case MDB_KEYEXIST: return Error{Errc::conflict, std::string(what) + ": already exists"};
    case MDB_MAP_FULL: return Error{Errc::storage_full, std::string(what) + ": the database is full"};
    default: return Error{Errc::internal, std::string(what) + ": " + mdb_strerror(rc)};
  }
}

inline MDB_val as_val(std::string_view bytes) {
  return MDB_val{bytes.size(), const_cast<char*>(bytes.data())};
}
inline std::string_view as_view(const MDB_val& val) {
  return {static_cast<const char*>(val.mv_data), val.mv_size};
}

// A transaction that aborts in its destructor unless committed.
class Txn {
 public:
  // MDB_MAP_RESIZED (another process grew the map) is passed on as
  // Errc::unavailable with the message kMapResized: only the caller knows
  // whether this process has no other transaction open, which adopting the
  // new size (mdb_env_set_mapsize) requires.
  static Result<Txn> begin(MDB_env* env, bool write) {
    MDB_txn* txn = nullptr;
    const int rc = mdb_txn_begin(env, nullptr, write ? 0 : MDB_RDONLY, &txn);
    if (rc == MDB_MAP_RESIZED) return fail(Errc::unavailable, std::string(kMapResized));
    if (rc != 0) return std::unexpected(lmdb_error(rc, "begin transaction"));
    return Txn(txn);
  }
  // A transaction nested in `parent` (a write transaction, which must not be
  // used until this one ends): its commit keeps its writes in the parent,
  // which alone reaches the disk; its abort undoes them and nothing else.
  static Result<Txn> begin_nested(MDB_env* env, MDB_txn* parent) {
    MDB_txn* txn = nullptr;
    if (int rc = mdb_txn_begin(env, parent, 0, &txn); rc != 0)
      return std::unexpected(lmdb_error(rc, "begin nested transaction"));
    return Txn(txn);
  }

  static constexpr std::string_view kMapResized = "the map was resized by another process";
  ~Txn() {
    if (txn_) mdb_txn_abort(txn_);
  }
  Txn(Txn&& other) noexcept : txn_(std::exchange(other.txn_, nullptr)) {}
  Txn& operator=(Txn&&) = delete;
  Txn(const Txn&) = delete;

  MDB_txn* get() const noexcept { return txn_; }

  Result<void> commit() {
    const int rc = mdb_txn_commit(std::exchange(txn_, nullptr));  // frees the txn even on failure
    if (rc != 0) return std::unexpected(lmdb_error(rc, "commit"));
    return {};
  }

  // Value of `key` in `dbi`; the view is valid until the transaction ends.
  Result<std::string_view> get(MDB_dbi dbi, std::string_view key) const {
    if (!storable_key(key)) return std::unexpected(lmdb_error(MDB_NOTFOUND, "read"));
    MDB_val k = as_val(key), v{};
    const int rc = mdb_get(txn_, dbi, &k, &v);
    if (rc != 0) return std::unexpected(lmdb_error(rc, "read"));
    return as_view(v);
  }

  Result<void> put(MDB_dbi dbi, std::string_view key, std::string_view value, unsigned flags = 0) {
    if (!storable_key(key)) return fail(Errc::invalid_input, "key is empty or too long");
    MDB_val k = as_val(key), v = as_val(value);
    const int rc = mdb_put(txn_, dbi, &k, &v, flags);
    if (rc != 0) return std::unexpected(lmdb_error(rc, "write"));
    return {};
  }

  Result<void> del(MDB_dbi dbi, std::string_view key) {
    if (!storable_key(key)) return std::unexpected(lmdb_error(MDB_NOTFOUND, "delete"));
    MDB_val k = as_val(key);
    const int rc = mdb_del(txn_, dbi, &k, nullptr);
    if (rc != 0) return std::unexpected(lmdb_error(rc, "delete"));
    return {};
  }

  // Deletes the one pair (key, value) of an MDB_DUPSORT table (not_found: no such pair).
  Result<void> del_pair(MDB_dbi dbi, std::string_view key, std::string_view value) {
    if (!storable_key(key)) return std::unexpected(lmdb_error(MDB_NOTFOUND, "delete"));
    MDB_val k = as_val(key), v = as_val(value);
    const int rc = mdb_del(txn_, dbi, &k, &v);
    if (rc != 0) return std::unexpected(lmdb_error(rc, "delete"));
    return {};
  }

  // Calls fn(key, value) for every entry in key order.
  template <class Fn>
  Result<void> for_each(MDB_dbi dbi, Fn&& fn) const {
    return for_each_from(dbi, {}, [&](std::string_view key, std::string_view value) {
      fn(key, value);
      return true;
    });
  }

  // Calls fn(key, value) for every entry whose key starts with `prefix`, in
  // key order: a range read, not a scan of the table.
  template <class Fn>
  Result<void> for_each_prefixed(MDB_dbi dbi, std::string_view prefix, Fn&& fn) const {
    return for_each_from(dbi, prefix, [&](std::string_view key, std::string_view value) {
      if (!key.starts_with(prefix)) return false;
      fn(key, value);
      return true;
    });
  }

  // Calls fn(key, value) -> bool (false: stop) for every entry whose key is
  // after `after` ("" = every entry), in key order: a range read.
  template <class Fn>
  Result<void> for_each_after(MDB_dbi dbi, std::string_view after, Fn&& fn) const {
    // LMDB seeks only to a key it could store: from the longest prefix of
    // `after` it can (no later than `after`), the keys up to `after` skipped.
    const auto from = after.substr(0, static_cast<std::size_t>(mdb_env_get_maxkeysize(mdb_txn_env(txn_))));
    return for_each_from(dbi, from, [&](std::string_view key, std::string_view value) {
      return key <= after || fn(key, value);
    });
  }

  // Calls fn(value) for every value of `key` in an MDB_DUPSORT table, in
  // value byte order.
  template <class Fn>
  Result<void> for_each_value(MDB_dbi dbi, std::string_view key, Fn&& fn) const {
    if (!storable_key(key)) return {};  // no such key can exist
    Cursor cursor;
    if (int rc = mdb_cursor_open(txn_, dbi, &cursor.get); rc != 0) return std::unexpected(lmdb_error(rc, "cursor"));
    MDB_val k = as_val(key), v{};
    int rc = mdb_cursor_get(cursor.get, &k, &v, MDB_SET_KEY);
    while (rc == 0) {
      fn(as_view(v));
      rc = mdb_cursor_get(cursor.get, &k, &v, MDB_NEXT_DUP);
    }
    if (rc != MDB_NOTFOUND) return std::unexpected(lmdb_error(rc, "scan"));
    return {};
  }

 private:
  struct Cursor {
    MDB_cursor* get = nullptr;
    ~Cursor() {
      if (get) mdb_cursor_close(get);
    }
  };

  // fn(key, value) -> bool (false: stop) from the first key >= `from` on.
  template <class Fn>
  Result<void> for_each_from(MDB_dbi dbi, std::string_view from, Fn&& fn) const {
    Cursor cursor;
    if (int rc = mdb_cursor_open(txn_, dbi, &cursor.get); rc != 0) return std::unexpected(lmdb_error(rc, "cursor"));
    MDB_val k = as_val(from), v{};
    int rc = from.empty() ? mdb_cursor_get(cursor.get, &k, &v, MDB_FIRST)
             : storable_key(from) ? mdb_cursor_get(cursor.get, &k, &v, MDB_SET_RANGE)
                                  : MDB_NOTFOUND;
    while (rc == 0 && fn(as_view(k), as_view(v))) rc = mdb_cursor_get(cursor.get, &k, &v, MDB_NEXT);
    if (rc != 0 && rc != MDB_NOTFOUND) return std::unexpected(lmdb_error(rc, "scan"));
    return {};
  }

  explicit Txn(MDB_txn* txn) noexcept : txn_(txn) {}
  // LMDB refuses empty keys and keys over its compile-time limit (511 bytes)
  // with MDB_BAD_VALSIZE; no such key can exist, so lookups say not found.
  bool storable_key(std::string_view key) const noexcept {
    return !key.empty() && key.size() <= static_cast<std::size_t>(mdb_env_get_maxkeysize(mdb_txn_env(txn_)));
  }
  MDB_txn* txn_;
};

// The compacting copy of `env` into a new file `file` (lmdb_backup.cpp).
Result<void> copy_compact(MDB_env* env, const std::filesystem::path& file);

}  // namespace authd::lmdb
