// A build without the PostgreSQL store (-DAUTHD_WITH_POSTGRESQL=OFF, as the
// shared-hosting release is made): choosing it stops the start, never a request.
#include "authd/postgres_store.hpp"

namespace authd {

Result<std::unique_ptr<Store>> open_postgres_store(const PostgresOptions&) {
  return fail(Errc::config, "store = postgresql: this build of authd has no PostgreSQL store "
                            "(built with -DAUTHD_WITH_POSTGRESQL=OFF); use store = lmdb");
}

}  // namespace authd
