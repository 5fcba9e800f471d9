// The contract suite on PostgreSQL: every test gets a new database in the
// shared test cluster (see postgres_test_cluster.hpp), dropped afterwards.
#include <memory>
#include <stdexcept>

#include "authd/postgres_store.hpp"
#include "postgres_test_cluster.hpp"
#include "store_backends.hpp"

namespace authd::test {
namespace {

PostgresOptions options_for(const std::string& url) {
  PostgresOptions options;
  options.database_url = url;
  options.pool_size = 8;
  options.statement_timeout = std::chrono::milliseconds(10000);
  options.connect_timeout = std::chrono::milliseconds(5000);
  return options;
}

std::unique_ptr<Store> open_or_throw(const std::string& url) {
  auto store = open_postgres_store(options_for(url));
  if (!store) throw std::runtime_error("open_postgres_store: " + store.error().message);
  return std::move(*store);
}

StoreUnderTest fresh_postgres() {
  auto db = std::make_shared<PgDatabase>("contract");
  const std::string url = db->url();
  StoreUnderTest out;
  out.keep_alive = db;
  out.store = open_or_throw(url);
  out.open_again = [url] { return open_or_throw(url); };
  return out;
}

const RegisterStoreBackend kPostgres{{"postgresql", fresh_postgres}};

}  // namespace
}  // namespace authd::test
