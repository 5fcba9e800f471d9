// Persistent storage behind one interface. A backend stores plain data —
// users, third-party links, records and small expiring entries — and keeps
// its own integrity rules (a username is unique, a write transaction commits
// whole or not at all). It holds no business rules: sign-up, linking,
// throttling and record versions live in the modules that use the store.
//
// Backends: LMDB (lib/store/lmdb/, the embedded default) and PostgreSQL
// (lib/store/postgres/, shared by several nodes; built with AUTHD_WITH_POSTGRESQL),
// chosen by the `store` setting among those registered (store_backends.hpp).
// Every backend must pass the contract suite in test/unit/store_contract_test.cpp
// and store_contract_email_test.cpp.
//
// Thread safety: one Store is shared by every thread of a process, and any
// number of processes may share the underlying database.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "authd/error.hpp"
#include "authd/user.hpp"

namespace authd {

// Which users list_users returns, and which slice of them.
struct UserQuery {
  std::optional<Role> role;               // only this role
  std::string contains;                   // only usernames containing this text ("" = all)
  // Only users with this address, compared ASCII case-insensitively ("" =
  // all). A backend answers it from an index: it costs the matches, not a
  // scan of the users (POST /password/forgot by email).
  std::string email = {};
  std::size_t offset = 0;                 // in username order
  std::size_t limit = static_cast<std::size_t>(-1);
};

struct UserPage {
  std::vector<User> users;  // username order
  std::size_t total = 0;    // matches before offset/limit
};

// What a backend reports about itself (for health checks and metrics).
struct StoreStats {
  std::size_t users = 0;
  std::size_t bytes_used = 0;      // on disk / in the map
  std::size_t bytes_capacity = 0;  // 0 when unbounded
};

// One entry with its namespace (StoreTxn::list_entries_under).
struct NamespacedEntry {
  std::string ns, key, value;
  bool operator==(const NamespacedEntry&) const = default;
};

// The operations available inside one transaction. Errors common to all:
// storage_full (writes), unavailable (the database cannot be reached now),
// internal. A read-only transaction answers every write with internal.
class StoreTxn {
 public:
  virtual ~StoreTxn() = default;

  // --- users, keyed by username (unique) ---------------------------------
  virtual Result<User> find_user(std::string_view username) = 0;            // not_found
  virtual Result<void> insert_user(const User& user) = 0;                   // conflict: username taken
  virtual Result<void> replace_user(const User& user) = 0;                  // not_found: no such username
  virtual Result<void> delete_user(std::string_view username) = 0;          // not_found
  virtual Result<UserPage> list_users(const UserQuery& query) = 0;
  // The usernames after `after` ("" = from the first), at most `limit` of
  // them, in username order: walks every user a page at a time, each page
  // costing only itself (list_users reads every match to count them).
  virtual Result<std::vector<std::string>> list_usernames(std::string_view after, std::size_t limit) = 0;

  // --- third-party identities ("provider:subject") -> username -----------
  virtual Result<std::string> find_link(std::string_view link) = 0;         // not_found
  virtual Result<void> insert_link(std::string_view link, std::string_view username) = 0;  // conflict
  virtual Result<void> delete_link(std::string_view link) = 0;              // not_found

  // --- records: JSON object text keyed by _id ----------------------------
  virtual Result<std::string> find_record(std::string_view id) = 0;         // not_found
  virtual Result<void> insert_record(std::string_view id, std::string_view json) = 0;   // conflict
  virtual Result<void> replace_record(std::string_view id, std::string_view json) = 0;  // not_found
  virtual Result<void> delete_record(std::string_view id) = 0;              // not_found
  // Every record as one JSON array text, in _id order.
  virtual Result<std::string> list_records() = 0;

  // --- small entries in named namespaces ---------------------------------
  // For features that keep little bits of state (sign-in counters, revoked
  // tokens, refresh-token families, ...): opaque bytes the caller encodes.
  // `expires_at` (Unix seconds, 0 = never) lets purge_expired drop them.
  virtual Result<std::optional<std::string>> get_entry(std::string_view ns, std::string_view key) = 0;
  virtual Result<void> put_entry(std::string_view ns, std::string_view key, std::string_view value,
                                 std::int64_t expires_at) = 0;
  virtual Result<void> delete_entry(std::string_view ns, std::string_view key) = 0;  // absent: ok
  virtual Result<std::vector<std::pair<std::string, std::string>>> list_entries(std::string_view ns) = 0;
  // Every entry of every namespace that begins with `ns_prefix` (not empty),
  // in namespace then key order: a sweep across per-user namespaces
  // ("refresh:<user id>") for the rare change that concerns them all, such as
  // removing an OpenID client. A range read, never a scan of other namespaces.
  virtual Result<std::vector<NamespacedEntry>> list_entries_under(std::string_view ns_prefix) = 0;
  // Deletes every entry whose expires_at is in (0, now]. Returns how many.
  virtual Result<std::size_t> purge_expired(std::int64_t now) = 0;
};

class Store {
 public:
  using Work = std::function<Result<void>(StoreTxn&)>;

  virtual ~Store() = default;

  // Runs `work` in one read-only transaction: a consistent snapshot.
  virtual Result<void> read(const Work& work) = 0;

  // Runs `work` in one write transaction: everything it wrote commits when it
  // returns success, nothing when it returns an error (that error is passed
  // on). A backend may run `work` again after a serialization failure, so it
  // must not act outside the transaction.
  virtual Result<void> write(const Work& work) = 0;

  // The user by name in one read: the guard's per-request lookup. A backend
  // may answer from a cache it keeps coherent across processes; the answer is
  // shared and read-only, so a cached one is handed out without a copy.
  virtual Result<std::shared_ptr<const User>> find_user_shared(std::string_view username) = 0;

  // The same lookup, as a copy the caller may change.
  Result<User> find_user(std::string_view username);

  // The record by id in one read (not_found): the capability read
  // GET /records/{id}. A backend may answer from a cache it keeps coherent
  // across processes (PostgreSQL); by default, one read transaction.
  virtual Result<std::string> find_record(std::string_view id);

  // Every record as one JSON array in one read: the guarded read GET
  // /records. A backend may answer from a cache, as for find_record.
  virtual Result<std::string> list_records();

  virtual Result<StoreStats> stats() = 0;

  // The backend's name ("lmdb", ...), for logs and metrics.
  virtual std::string_view name() const noexcept = 0;

  // True when a call may wait on the network (a database server): the
  // server then tries requests on its event loops inside a MemoryOnly scope
  // (below) and runs on other threads what the store cannot answer there.
  virtual bool waits_on_network() const noexcept { return false; }

  // True when a commit may wait: on the network, or on the disk (LMDB with
  // sync_writes, whose commit flushes). The server then runs the routes that
  // write (Lane::write) on threads other than its event loops.
  virtual bool commits_wait() const noexcept { return waits_on_network(); }

  // A consistent copy of the whole store in `file` (created 0600; must not
  // exist), taken while the store serves. LMDB: mdb_env_copyfd2 with
  // MDB_CP_COMPACT (one read transaction, writers never wait). A backend
  // with its own tools (PostgreSQL: pg_dump) answers not_configured.
  virtual Result<void> backup(const std::filesystem::path& file) {
    (void)file;
    return fail(Errc::not_configured, std::string(name()) + " has no built-in backup: use the database's own tools");
  }
};

// Answering from memory only, for a thread that must never wait on the
// network (an event loop). While a MemoryOnly scope is alive on a thread, a
// store that waits on the network (waits_on_network()) answers on that
// thread only what it holds in memory (the caches it keeps coherent) and
// refuses anything else at once, before touching the network: the call fails
// with Errc::unavailable and the scope notes it (refused()), whether or not
// the caller goes on without the answer. The thread then throws away what it
// made of the request and runs it again where waiting is allowed; so what runs
// inside a scope must have no effect outside the process before its store
// calls, and none that the second run would repeat (the router's Lane::read
// routes). A write is refused before its work runs. A scope opened inside
// another notes its own refusals only. A store that never waits (LMDB)
// ignores scopes.
class MemoryOnly {
 public:
  MemoryOnly() noexcept : outer_(std::exchange(current_, this)) {}
  ~MemoryOnly() { current_ = outer_; }
  MemoryOnly(const MemoryOnly&) = delete;
  MemoryOnly& operator=(const MemoryOnly&) = delete;

  // Whether this scope refused a call.
  bool refused() const noexcept { return refused_; }

  // Whether the calling thread is in a scope.
  static bool active() noexcept { return current_ != nullptr; }

  // Whether the calling thread is in a scope that has refused a call.
  static bool refused_here() noexcept { return current_ && current_->refused_; }

  // For a backend, before it would wait on the network: true when it must
  // not (the calling thread is in a scope, which now notes the refusal).
  static bool refuse_wait() noexcept {
    if (!current_) return false;
    current_->refused_ = true;
    return true;
  }

  // The error a refused call answers.
  static Error refusal() { return Error::retry_later(Errc::unavailable, 1, "the store would wait on the network"); }

 private:
  MemoryOnly* outer_;
  bool refused_ = false;
  static inline thread_local MemoryOnly* current_ = nullptr;
};

// Runs `query(txn)` (returning Result<T>) in one read transaction of `store`
// and hands back its value: the usual shape of a read.
template <class Query>
auto read_value(Store& store, Query&& query) -> decltype(query(std::declval<StoreTxn&>())) {
  using Answer = decltype(query(std::declval<StoreTxn&>()));
  std::optional<Answer> answer;
  auto done = store.read([&](StoreTxn& txn) -> Result<void> {
    answer.emplace(query(txn));
    return {};
  });
  if (!done) return std::unexpected(done.error());
  return std::move(*answer);
}

inline Result<User> Store::find_user(std::string_view username) {
  auto shared = find_user_shared(username);
  if (!shared) return std::unexpected(shared.error());
  return **shared;
}

inline Result<std::string> Store::find_record(std::string_view id) {
  return read_value(*this, [&](StoreTxn& txn) { return txn.find_record(id); });
}

inline Result<std::string> Store::list_records() {
  return read_value(*this, [](StoreTxn& txn) { return txn.list_records(); });
}

// A new 24-hex-character identifier: 4 bytes of seconds, 5 random bytes per
// process, 3 bytes of counter (the MongoDB ObjectId layout).
std::string new_object_id();

}  // namespace authd
