#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <cstring>
#include <utility>

#include "email_index.hpp"
#include "lmdb_txn.hpp"

namespace authd::lmdb {
namespace {

// The state directory holds the database and the signing key: it must be
// private. A missing directory is created (mode 0700) when its parent exists;
// a missing parent is refused, so that a typo does not silently build a tree
// somewhere. An existing directory we own that others can read is tightened.
Result<void> prepare_directory(const std::filesystem::path& dir) {
  struct stat info{};
  if (::stat(dir.c_str(), &info) != 0) {
    if (errno != ENOENT) return fail(Errc::io, "state directory " + dir.string() + ": " + std::strerror(errno));
    if (::mkdir(dir.c_str(), 0700) != 0) {
      return fail(Errc::io, "cannot create state directory " + dir.string() + ": " + std::strerror(errno));
    }
    return {};
  }
  if (!S_ISDIR(info.st_mode)) return fail(Errc::io, "state directory " + dir.string() + " is not a directory");
  // Effective ids (and capabilities), as open(2) will use them.
  if (::faccessat(AT_FDCWD, dir.c_str(), R_OK | W_OK | X_OK, AT_EACCESS) != 0) {
    return fail(Errc::io, "state directory " + dir.string() + " is not writable: " + std::strerror(errno));
  }
  if ((info.st_mode & 077) != 0 && info.st_uid == ::geteuid()) ::chmod(dir.c_str(), 0700);
  return {};
}

// Opens (creating as needed) every table in one write transaction.
Result<void> open_tables(Environment& impl) {
  auto txn = Txn::begin(impl.env, true);
  if (!txn) return std::unexpected(txn.error());
  for (auto [name, dbi] : {std::pair{"users", &impl.users}, std::pair{"records", &impl.records},
                           std::pair{"links", &impl.links}, std::pair{"entries", &impl.entries}}) {
    if (int rc = mdb_dbi_open(txn->get(), name, MDB_CREATE, dbi); rc != 0) {
      return fail(rc == MDB_MAP_FULL ? Errc::storage_full : Errc::io,
                  std::string(name) + " table: " + mdb_strerror(rc));
    }
  }
  auto index = email_index::open(*txn, impl.users);
  if (!index) return std::unexpected(index.error());
  impl.users_by_email = *index;
  return txn->commit();
}

}  // namespace

Result<std::unique_ptr<Environment>> open_environment(const LmdbOptions& options) {
  if (auto ok = prepare_directory(options.directory); !ok) return std::unexpected(ok.error());
  auto impl = std::make_unique<Environment>();
  impl->directory = options.directory;
  auto check = [&](int rc, const char* what) -> Result<void> {
    if (rc == 0) return {};
    return fail(rc == MDB_MAP_FULL ? Errc::storage_full : Errc::io,
                std::string("cannot open the database in ") + options.directory.string() + " (" + what +
                    "): " + mdb_strerror(rc));
  };
  if (auto ok = check(mdb_env_create(&impl->env), "create"); !ok) return std::unexpected(ok.error());
  if (auto ok = check(mdb_env_set_maxdbs(impl->env, 8), "maxdbs"); !ok) return std::unexpected(ok.error());
  if (auto ok = check(mdb_env_set_mapsize(impl->env, std::min(options.map_size_bytes, options.initial_map_bytes)), "mapsize"); !ok) {
    return std::unexpected(ok.error());
  }
  if (auto ok = check(mdb_env_set_maxreaders(impl->env, options.max_readers), "maxreaders"); !ok) {
    return std::unexpected(ok.error());
  }
  // MDB_NOTLS: read transactions belong to the Txn object, not the thread, so
  // worker threads can each keep their own. Sync stays on unless configured off.
  unsigned flags = MDB_NOTLS;
  if (!options.sync) flags |= MDB_NOSYNC;
  if (auto ok = check(mdb_env_open(impl->env, options.directory.c_str(), flags, 0600), "open"); !ok) {
    return std::unexpected(ok.error());
  }
  int stale = 0;
  mdb_reader_check(impl->env, &stale);  // clear slots of readers that died (e.g. SIGKILL)

  // A store from before the email index gets it built here, which may need
  // a bigger map: grow it as a write would (open_tables left nothing behind).
  for (;;) {
    auto opened = open_tables(*impl);
    if (opened) break;
    if (opened.error().code != Errc::storage_full) {
      return fail(opened.error().code, "cannot open the database in " + options.directory.string() + " (" +
                                           opened.error().message + ")");
    }
    MDB_envinfo info{};
    mdb_env_info(impl->env, &info);
    if (info.me_mapsize >= options.map_size_bytes ||
        mdb_env_set_mapsize(impl->env, std::min(options.map_size_bytes, info.me_mapsize * 2)) != 0) {
      return fail(Errc::storage_full, "cannot open the database in " + options.directory.string() +
                                          ": map_size_mb is too small for it (" +
                                          opened.error().message + ")");
    }
  }
  return impl;
}

}  // namespace authd::lmdb
