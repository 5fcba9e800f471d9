// Backup and restore of the LMDB store. Backup is LMDB's compacting copy
// (mdb_env_copyfd2 + MDB_CP_COMPACT): it runs in one read transaction, so it
// is consistent while authd serves and never blocks a writer; free pages are
// left out. Restore puts such a file back as data.mdb with authd stopped.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "authd/private_file.hpp"
#include "authd/store_backends.hpp"
#include "lmdb_txn.hpp"

namespace authd {
namespace lmdb {
namespace {

Result<void> io_error(const std::string& what) { return fail(Errc::io, what + ": " + std::strerror(errno)); }

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

struct Env {
  MDB_env* env = nullptr;
  ~Env() {
    if (env) mdb_env_close(env);
  }
};

// Opens `file` (a single-file LMDB database) read-only, without a lock file,
// and checks that it has authd's users table.
Result<void> check_backup(const std::filesystem::path& file) {
  Env env;
  if (mdb_env_create(&env.env) != 0) return fail(Errc::internal, "mdb_env_create");
  mdb_env_set_maxdbs(env.env, 8);
  if (int rc = mdb_env_open(env.env, file.c_str(), MDB_NOSUBDIR | MDB_RDONLY | MDB_NOLOCK, 0600); rc != 0) {
    return fail(Errc::invalid_input, file.string() + " is not an LMDB backup: " + mdb_strerror(rc));
  }
  MDB_txn* txn = nullptr;
  if (int rc = mdb_txn_begin(env.env, nullptr, MDB_RDONLY, &txn); rc != 0) {
    return fail(Errc::invalid_input, file.string() + ": " + mdb_strerror(rc));
  }
  MDB_dbi users = 0;
  const int rc = mdb_dbi_open(txn, "users", 0, &users);
  mdb_txn_abort(txn);
  if (rc != 0) return fail(Errc::invalid_input, file.string() + " is not an authd store (no users table)");
  return {};
}

Result<bool> store_is_empty(const LmdbOptions& options) {
  if (!std::filesystem::exists(options.directory / "data.mdb")) return true;
  auto store = open_lmdb_store(options);
  if (!store) return std::unexpected(store.error());
  bool empty = true;
  auto read = (*store)->read([&](StoreTxn& txn) -> Result<void> {
    UserQuery one;
    one.limit = 1;
    auto users = txn.list_users(one);
    if (!users) return std::unexpected(users.error());
    auto records = txn.list_records();
    if (!records) return std::unexpected(records.error());
    empty = users->total == 0 && *records == "[]";
    return {};
  });
  if (!read) return std::unexpected(read.error());
  return empty;
}

// `from` copied to `to` as a PrivateFile (authd/private_file.hpp): created
// exclusively beside it with mode 0600, renamed into place when complete.
Result<void> copy_file(const std::filesystem::path& from, const std::filesystem::path& to) {
  Fd in{::open(from.c_str(), O_RDONLY | O_CLOEXEC)};
  if (in.fd < 0) return io_error("cannot read " + from.string());
  auto out = PrivateFile::create(to, 0600);
  if (!out) return std::unexpected(out.error());
  char buffer[1 << 16];
  for (;;) {
    const auto n = ::read(in.fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return io_error("cannot read " + from.string());
    if (n == 0) break;
    if (auto ok = out->write({buffer, static_cast<std::size_t>(n)}); !ok) return ok;
  }
  return out->commit();
}

}  // namespace

Result<void> copy_compact(MDB_env* env, const std::filesystem::path& file) {
  // Written to a PrivateFile beside the target (exclusive, mode 0600, no
  // link followed) and linked into place at the end: a failed backup never
  // leaves a file that looks complete, and an existing name (a symlink
  // included) is refused, never overwritten.
  std::error_code ec;
  if (std::filesystem::symlink_status(file, ec).type() != std::filesystem::file_type::not_found) {
    return fail(Errc::conflict, file.string() + " already exists");
  }
  auto out = PrivateFile::create(file, 0600);
  if (!out) return std::unexpected(out.error());
  if (int rc = mdb_env_copyfd2(env, out->fd(), MDB_CP_COMPACT); rc != 0) {
    return fail(rc == ENOSPC ? Errc::storage_full : Errc::io, std::string("backup failed: ") + mdb_strerror(rc));
  }
  return out->commit(PrivateFile::Existing::refuse);
}

}  // namespace lmdb

Result<void> restore_lmdb(const LmdbOptions& options, const std::filesystem::path& backup, bool force) {
  if (auto ok = lmdb::check_backup(backup); !ok) return ok;
  if (!force) {
    auto empty = lmdb::store_is_empty(options);
    if (!empty) return std::unexpected(empty.error());
    if (!*empty) {
      return fail(Errc::conflict, "the store in " + options.directory.string() +
                                      " holds users or records; pass --force to replace it");
    }
  }
  std::error_code ec;
  std::filesystem::create_directories(options.directory, ec);
  ::chmod(options.directory.c_str(), 0700);
  const auto target = options.directory / "data.mdb";
  // Copied beside data.mdb under a temporary name, then renamed over it.
  if (auto ok = lmdb::copy_file(backup, target); !ok) return ok;
  // The old lock file describes readers of the replaced file: start afresh.
  std::filesystem::remove(options.directory / "lock.mdb", ec);
  return {};
}

}  // namespace authd
