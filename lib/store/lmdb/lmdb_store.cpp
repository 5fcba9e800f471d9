// The LMDB backend of the Store interface: plain data in four tables (users,
// records, links, entries) and the email index (email_index.hpp) written with
// the users, each transaction one LMDB transaction (writers are serialised by
// LMDB across threads and processes, so `work` runs exactly once). The
// one-read lookups (find_user_shared, find_record, list_records) answer from
// a cache while nothing has committed since (snapshot_cache.hpp).
#include <algorithm>
#include <cstring>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <span>
#include <vector>

#include "authd/clock.hpp"
#include "authd/text.hpp"
#include "email_index.hpp"
#include "group_commit.hpp"
#include "lmdb_txn.hpp"
#include "snapshot_cache.hpp"
#include "user_codec.hpp"

namespace authd {
namespace lmdb {
namespace {

// At most this many users and records are kept between commits (a user is
// well under a KiB): the guard's lookups on a read-mostly load.
constexpr std::size_t kCachedUsers = 16384;
constexpr std::size_t kCachedRecords = 16384;

Result<User> decode(std::string_view bytes) {
  auto user = store_detail::decode_user(bytes);
  if (!user) return fail(Errc::internal, "corrupt user record");
  return std::move(*user);
}

// The address of a stored user ("" for a corrupt record: it has none to index).
std::string stored_email(std::string_view bytes) {
  auto user = store_detail::decode_user(bytes);
  return user ? std::move(user->email) : std::string();
}

// Counts `user` among the matches of `query`, keeping it when it is in the page's slice.
void take(UserPage& page, const UserQuery& query, User&& user) {
  if (page.total >= query.offset && page.users.size() < query.limit) page.users.push_back(std::move(user));
  ++page.total;
}

// Entries: key = namespace '\0' key; value = expires_at (i64 LE) + bytes.
std::string entry_key(std::string_view ns, std::string_view key) {
  std::string out(ns);
  out.push_back('\0');
  out += key;
  return out;
}

std::string entry_value(std::string_view value, std::int64_t expires_at) {
  std::string out(8, '\0');
  auto v = static_cast<std::uint64_t>(expires_at);
  for (int i = 0; i < 8; ++i) out[static_cast<std::size_t>(i)] = static_cast<char>((v >> (8 * i)) & 0xff);
  out += value;
  return out;
}

std::int64_t entry_expiry(std::string_view stored) {
  if (stored.size() < 8) return 0;
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(stored[static_cast<std::size_t>(i)]);
  return static_cast<std::int64_t>(v);
}

// Not-found with a word on what was looked for.
template <class T>
Result<T> missing_as(const Error& error, std::string_view what) {
  if (error.code == Errc::not_found) return fail(Errc::not_found, "no such " + std::string(what));
  return std::unexpected(error);
}

class LmdbTxn final : public StoreTxn {
 public:
  LmdbTxn(Environment& env, Txn& txn, bool writable) : env_(env), txn_(txn), writable_(writable) {}

  Result<User> find_user(std::string_view username) override {
    auto bytes = txn_.get(env_.users, username);
    if (!bytes) return missing_as<User>(bytes.error(), "user");
    return decode(*bytes);
  }

  // Each user write changes the email index in the same transaction, after
  // every refusal (taken, missing, bad key) has been answered: a later
  // failure can only be LMDB's own, which fails the whole transaction.
  Result<void> insert_user(const User& user) override {
    if (auto ok = writable(); !ok) return ok;
    // MDB_NOOVERWRITE: the uniqueness check and the insert are one step.
    auto put = txn_.put(env_.users, user.username, store_detail::encode_user(user), MDB_NOOVERWRITE);
    if (!put && put.error().code == Errc::conflict) return fail(Errc::conflict, "username already exists");
    if (!put) return put;
    return email_index::add(txn_, env_.users_by_email, user.email, user.username);
  }

  Result<void> replace_user(const User& user) override {
    if (auto ok = writable(); !ok) return ok;
    auto existing = txn_.get(env_.users, user.username);
    if (!existing) return missing_as<void>(existing.error(), "user");
    const std::string previous = stored_email(*existing);  // the view ends with the put below
    if (auto put = txn_.put(env_.users, user.username, store_detail::encode_user(user)); !put) return put;
    return email_index::move(txn_, env_.users_by_email, previous, user.email, user.username);
  }

  Result<void> delete_user(std::string_view username) override {
    if (auto ok = writable(); !ok) return ok;
    auto existing = txn_.get(env_.users, username);
    if (!existing) return missing_as<void>(existing.error(), "user");
    const std::string previous = stored_email(*existing);
    if (auto ok = txn_.del(env_.users, username); !ok) return missing_as<void>(ok.error(), "user");
    return email_index::remove(txn_, env_.users_by_email, previous, username);
  }

  Result<UserPage> list_users(const UserQuery& query) override {
    if (!query.email.empty()) return list_users_of_email(query);
    UserPage page;
    bool corrupt = false;
    auto scanned = txn_.for_each(env_.users, [&](std::string_view name, std::string_view value) {
      if (!query.contains.empty() && name.find(query.contains) == std::string_view::npos) return;
      auto user = store_detail::decode_user(value);
      if (!user) {
        corrupt = true;
        return;
      }
      if (query.role && user->role != *query.role) return;
      take(page, query, std::move(*user));
    });
    if (!scanned) return std::unexpected(scanned.error());
    if (corrupt) return fail(Errc::internal, "corrupt user record");
    return page;
  }

  Result<std::vector<std::string>> list_usernames(std::string_view after, std::size_t limit) override {
    std::vector<std::string> names;
    if (limit == 0) return names;
    auto scanned = txn_.for_each_after(env_.users, after, [&](std::string_view name, std::string_view) {
      names.emplace_back(name);
      return names.size() < limit;
    });
    if (!scanned) return std::unexpected(scanned.error());
    return names;
  }

  // Through the email index: only the users filed under that address are read.
  Result<UserPage> list_users_of_email(const UserQuery& query) {
    UserPage page;
    std::optional<Error> failed;
    auto scanned = txn_.for_each_value(env_.users_by_email, email_index::key_of(query.email), [&](std::string_view name) {
      if (failed || (!query.contains.empty() && name.find(query.contains) == std::string_view::npos)) return;
      auto bytes = txn_.get(env_.users, name);
      if (!bytes) {
        if (bytes.error().code != Errc::not_found) failed = bytes.error();
        return;
      }
      auto user = store_detail::decode_user(*bytes);
      if (!user) {
        failed = Error{Errc::internal, "corrupt user record"};
        return;
      }
      // A key is the address cut to kMaxKeyBytes: compare the whole of it.
      if (!text::iequals(user->email, query.email) || (query.role && user->role != *query.role)) return;
      take(page, query, std::move(*user));
    });
    if (!scanned) return std::unexpected(scanned.error());
    if (failed) return std::unexpected(*failed);
    return page;
  }

  Result<std::string> find_link(std::string_view link) override {
    auto name = txn_.get(env_.links, link);
    if (!name) return missing_as<std::string>(name.error(), "link");
    return std::string(*name);
  }

  Result<void> insert_link(std::string_view link, std::string_view username) override {
    if (auto ok = writable(); !ok) return ok;
    return txn_.put(env_.links, link, username, MDB_NOOVERWRITE);
  }

  Result<void> delete_link(std::string_view link) override {
    if (auto ok = writable(); !ok) return ok;
    if (auto ok = txn_.del(env_.links, link); !ok) return missing_as<void>(ok.error(), "link");
    return {};
  }

  Result<std::string> find_record(std::string_view id) override {
    auto text = txn_.get(env_.records, id);
    if (!text) return missing_as<std::string>(text.error(), "record");
    return std::string(*text);
  }

  Result<void> insert_record(std::string_view id, std::string_view json) override {
    if (auto ok = writable(); !ok) return ok;
    return txn_.put(env_.records, id, json, MDB_NOOVERWRITE);
  }

  Result<void> replace_record(std::string_view id, std::string_view json) override {
    if (auto ok = writable(); !ok) return ok;
    if (auto existing = txn_.get(env_.records, id); !existing) return missing_as<void>(existing.error(), "record");
    return txn_.put(env_.records, id, json);
  }

  Result<void> delete_record(std::string_view id) override {
    if (auto ok = writable(); !ok) return ok;
    if (auto ok = txn_.del(env_.records, id); !ok) return missing_as<void>(ok.error(), "record");
    return {};
  }

  Result<std::string> list_records() override {
    std::string out;
    out.reserve(4096);  // one allocation for a typical list, not one per doubling
    out += '[';
    auto scanned = txn_.for_each(env_.records, [&](std::string_view, std::string_view value) {
      if (out.size() > 1) out += ',';
      out += value;
    });
    if (!scanned) return std::unexpected(scanned.error());
    out += ']';
    return out;
  }

  Result<std::optional<std::string>> get_entry(std::string_view ns, std::string_view key) override {
    auto stored = txn_.get(env_.entries, entry_key(ns, key));
    if (!stored) {
      if (stored.error().code == Errc::not_found) return std::optional<std::string>();
      return std::unexpected(stored.error());
    }
    if (stored->size() < 8) return fail(Errc::internal, "corrupt entry");
    return std::optional<std::string>(std::string(stored->substr(8)));
  }

  Result<void> put_entry(std::string_view ns, std::string_view key, std::string_view value,
                         std::int64_t expires_at) override {
    if (auto ok = writable(); !ok) return ok;
    return txn_.put(env_.entries, entry_key(ns, key), entry_value(value, expires_at));
  }

  Result<void> delete_entry(std::string_view ns, std::string_view key) override {
    if (auto ok = writable(); !ok) return ok;
    auto deleted = txn_.del(env_.entries, entry_key(ns, key));
    if (!deleted && deleted.error().code != Errc::not_found) return deleted;
    return {};
  }

  Result<std::vector<std::pair<std::string, std::string>>> list_entries(std::string_view ns) override {
    std::vector<std::pair<std::string, std::string>> out;
    const std::string prefix = entry_key(ns, "");
    // A range read: the username index alone files an entry per user.
    auto scanned = txn_.for_each_prefixed(env_.entries, prefix, [&](std::string_view key, std::string_view value) {
      if (value.size() >= 8) out.emplace_back(key.substr(prefix.size()), value.substr(8));
    });
    if (!scanned) return std::unexpected(scanned.error());
    return out;
  }

  Result<std::vector<NamespacedEntry>> list_entries_under(std::string_view ns_prefix) override {
    if (ns_prefix.empty()) return fail(Errc::internal, "list_entries_under needs a namespace prefix");
    std::vector<NamespacedEntry> out;
    // Keys are "namespace\0key": a range read of the prefix, split at the first NUL.
    auto scanned = txn_.for_each_prefixed(env_.entries, ns_prefix, [&](std::string_view key, std::string_view value) {
      const auto nul = key.find('\0');
      if (nul == std::string_view::npos || value.size() < 8) return;
      out.push_back({std::string(key.substr(0, nul)), std::string(key.substr(nul + 1)), std::string(value.substr(8))});
    });
    if (!scanned) return std::unexpected(scanned.error());
    return out;
  }

  Result<std::size_t> purge_expired(std::int64_t now) override {
    if (auto ok = writable(); !ok) return std::unexpected(ok.error());
    std::vector<std::string> expired;
    auto scanned = txn_.for_each(env_.entries, [&](std::string_view key, std::string_view value) {
      const auto at = entry_expiry(value);
      if (at > 0 && at <= now) expired.emplace_back(key);
    });
    if (!scanned) return std::unexpected(scanned.error());
    for (const auto& key : expired) {
      if (auto ok = txn_.del(env_.entries, key); !ok) return std::unexpected(ok.error());
    }
    return expired.size();
  }

 private:
  Result<void> writable() const {
    if (!writable_) return fail(Errc::internal, "write in a read-only transaction");
    return {};
  }

  Environment& env_;
  Txn& txn_;
  bool writable_;
};

// Growing the map (mdb_env_set_mapsize) is allowed only while this process
// has no transaction open. Every transaction therefore runs under a shared
// lock, and growing (or adopting another process's growth) takes it
// exclusively: it waits for the open transactions to end, and new ones wait
// for it.
class LmdbStore final : public Store {
 public:
  LmdbStore(std::unique_ptr<Environment> env, std::size_t max_map_bytes, bool sync)
      : env_(std::move(env)), max_map_bytes_(max_map_bytes), sync_(sync) {}

  Result<void> read(const Work& work) override {
    return with_txn(false, [&](Txn& txn) {
      LmdbTxn view(*env_, txn, false);
      return work(view);  // a read transaction is simply aborted
    });
  }

  // Writes that arrive together commit together (group_commit.hpp).
  Result<void> write(const Work& work) override { return group_commit_.write(work); }

  Result<std::shared_ptr<const User>> find_user_shared(std::string_view username) override {
    return cached(users_, username, [&](LmdbTxn& txn) -> Result<std::shared_ptr<const User>> {
      auto user = txn.find_user(username);
      if (!user) return std::unexpected(user.error());
      return std::make_shared<const User>(std::move(*user));
    });
  }

  Result<std::string> find_record(std::string_view id) override {
    return cached(records_, id, [&](LmdbTxn& txn) { return txn.find_record(id); });
  }

  Result<std::string> list_records() override {
    return cached(record_list_, "", [](LmdbTxn& txn) { return txn.list_records(); });
  }

  Result<StoreStats> stats() override {
    return with_txn(false, [&](Txn& txn) -> Result<StoreStats> {
      MDB_stat users{};
      if (int rc = mdb_stat(txn.get(), env_->users, &users); rc != 0) {
        return std::unexpected(lmdb_error(rc, "stat"));
      }
      MDB_envinfo info{};
      MDB_stat env{};
      mdb_env_info(env_->env, &info);
      mdb_env_stat(env_->env, &env);
      return StoreStats{users.ms_entries, (info.me_last_pgno + 1) * env.ms_psize,
                        std::max<std::size_t>(info.me_mapsize, max_map_bytes_)};
    });
  }

  std::string_view name() const noexcept override { return "lmdb"; }

  bool commits_wait() const noexcept override { return sync_; }  // each commit flushes

  Result<void> backup(const std::filesystem::path& file) override { return copy_compact(env_->env, file); }

 private:
  // Runs fn(txn) in a transaction under the shared lock, adopting a size
  // another process gave the map when LMDB asks for it.
  template <class Fn>
  auto with_txn(bool writable, Fn&& fn) -> decltype(fn(std::declval<Txn&>())) {
    for (;;) {
      {
        std::shared_lock lock(resize_);
        auto txn = Txn::begin(env_->env, writable);
        if (txn) return fn(*txn);
        if (txn.error().message != Txn::kMapResized) return std::unexpected(txn.error());
      }
      std::unique_lock exclusive(resize_);
      mdb_env_set_mapsize(env_->env, 0);  // adopt the size the other process set
    }
  }

  // A one-read lookup answered from `cache` while no transaction has committed
  // since its answer was read (snapshot_cache.hpp); else read, and kept.
  template <class V, class Read>
  Result<V> cached(SnapshotCache<V>& cache, std::string_view key, Read&& read) {
    {
      std::shared_lock lock(resize_);  // the meta pages move when the map does
      MDB_envinfo info{};
      mdb_env_info(env_->env, &info);
      if (auto hit = cache.find(key, info.me_last_txnid)) return std::move(*hit);
    }
    return with_txn(false, [&](Txn& txn) -> Result<V> {
      LmdbTxn view(*env_, txn, false);
      auto value = read(view);
      if (value) cache.put(key, mdb_txn_id(txn.get()), *value);
      return value;
    });
  }

  // One batch of group commit: each write in a transaction nested in one
  // parent, so that a write that fails undoes its own changes only, and the
  // parent's commit (one flush) makes the others durable together. A write
  // that found the map full runs again once the map has grown.
  std::vector<std::optional<Result<void>>> run_batch(std::span<const Work* const> works) {
    std::vector<std::optional<Result<void>>> outcomes(works.size());
    std::vector<bool> kept(works.size(), false);  // committed into the parent
    bool full = false;
    auto committed = with_txn(true, [&](Txn& parent) -> Result<void> {
      for (std::size_t i = 0; i < works.size(); ++i) {
        auto nested = Txn::begin_nested(env_->env, parent.get());
        if (!nested) {
          outcomes[i] = std::unexpected(nested.error());
          continue;
        }
        LmdbTxn view(*env_, *nested, true);
        auto done = (*works[i])(view);
        if (done) done = nested->commit();  // else ~Txn aborts: nothing of it stays
        if (done) kept[i] = true;
        else if (done.error().code == Errc::storage_full) full = true;  // outcome left open: run again
        else outcomes[i] = std::move(done);
      }
      return parent.commit();
    });
    if (!committed && committed.error().code == Errc::storage_full) full = true;
    for (std::size_t i = 0; i < works.size(); ++i) {
      if (outcomes[i]) continue;
      if (kept[i] && committed) outcomes[i] = Result<void>{};
      else if (!committed && committed.error().code != Errc::storage_full) outcomes[i] = committed;
    }
    // At map_size_mb the store is full: what found it so fails with that.
    if (full && !grow())
      for (auto& outcome : outcomes)
        if (!outcome) outcome = fail(Errc::storage_full, "write: the database is full");
    return outcomes;
  }

  // Doubles the map (up to the maximum). False when it is at the maximum.
  bool grow() {
    std::unique_lock exclusive(resize_);
    MDB_envinfo info{};
    mdb_env_info(env_->env, &info);
    if (info.me_mapsize >= max_map_bytes_) return false;
    const std::size_t bigger = std::min(max_map_bytes_, info.me_mapsize * 2);
    return mdb_env_set_mapsize(env_->env, bigger) == 0;
  }

  std::unique_ptr<Environment> env_;
  std::size_t max_map_bytes_;
  bool sync_;
  std::shared_mutex resize_;
  SnapshotCache<std::shared_ptr<const User>> users_{kCachedUsers};
  SnapshotCache<std::string> records_{kCachedRecords};
  SnapshotCache<std::string> record_list_{1};
  GroupCommit group_commit_{[this](std::span<const Work* const> works) { return run_batch(works); }};
};

}  // namespace
}  // namespace lmdb

Result<std::unique_ptr<Store>> open_lmdb_store(const LmdbOptions& options) {
  auto env = lmdb::open_environment(options);
  if (!env) return std::unexpected(env.error());
  return std::unique_ptr<Store>(new lmdb::LmdbStore(std::move(*env), options.map_size_bytes, options.sync));
}

}  // namespace authd
