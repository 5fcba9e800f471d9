// The contract suite on LMDB: every test gets a new environment in a
// temporary directory.
#include <stdexcept>

#include "authd/store_backends.hpp"
#include "store_backends.hpp"
#include "test_support.hpp"

namespace authd::test {
namespace {

StoreUnderTest fresh_lmdb() {
  auto dir = std::make_shared<TempDir>();
  LmdbOptions options;
  options.directory = dir->path() / "db";
  options.map_size_bytes = std::size_t{64} << 20;
  options.sync = false;
  auto store = open_lmdb_store(options);
  if (!store) throw std::runtime_error("open_lmdb_store: " + store.error().message);
  StoreUnderTest out;
  out.store = std::move(*store);
  out.keep_alive = dir;
  return out;  // open_again stays empty: LMDB must not be opened twice in one process
}

const RegisterStoreBackend kLmdb{{"lmdb", fresh_lmdb}};

}  // namespace
}  // namespace authd::test
