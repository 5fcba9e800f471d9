// The PostgreSQL store's own promises (authd/postgres_store.hpp), beyond the
// contract suite: faults (database down at start, restarted, slow), migrations
// by several nodes at once, passwords from libpq's usual sources, and the user
// cache following changes made by hand in SQL or while its LISTEN connection
// is lost. Each fault test runs its own throw-away cluster.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <thread>

#include "authd/postgres_store.hpp"
#include "postgres_test_cluster.hpp"
#include "test_support.hpp"

namespace authd {
namespace {

using test::PgCluster;
using test::PgDatabase;
using test::within;
using namespace std::chrono_literals;
using SteadyClock = std::chrono::steady_clock;

User make_user(std::string username, Role role = Role::user) {
  User user;
  user.id = new_object_id();
  user.username = std::move(username);
  user.role = role;
  return user;
}

PostgresOptions options_for(const std::string& url) {
  PostgresOptions options;
  options.database_url = url;
  options.pool_size = 4;
  options.statement_timeout = 5000ms;
  options.connect_timeout = 2000ms;
  return options;
}

std::unique_ptr<Store> open(const PostgresOptions& options) {
  auto store = open_postgres_store(options);
  EXPECT_TRUE(store) << store.error().message;
  return store ? std::move(*store) : nullptr;
}

Result<void> insert(Store& store, const User& user) {
  return store.write([&](StoreTxn& txn) { return txn.insert_user(user); });
}


// How many connections LISTEN for user changes on `db` ("1" once the store's listener is up).
std::string listeners(const PgDatabase& db) {
  return db.psql("SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'LISTEN authd_users%' AND datname = current_database()");
}

// True when `username`'s role as `store` reads it becomes `role` within a second.
bool role_becomes(Store& store, const std::string& username, Role role) {
  return within(1000ms, [&] {
    auto found = store.find_user(username);
    return found && found->role == role;
  });
}

TEST(PostgresStore, DatabaseDownAtStartAnswersUnavailableThenRecovers) {
  PgCluster cluster = PgCluster::create();
  cluster.start();
  cluster.psql("postgres", "CREATE DATABASE authd");
  const std::string url = cluster.url("authd");
  cluster.stop();

  auto store = open(options_for(url));  // opens although nothing listens
  ASSERT_TRUE(store);
  auto refused = insert(*store, make_user("early"));
  ASSERT_FALSE(refused);
  EXPECT_EQ(Errc::unavailable, refused.error().code);
  ASSERT_TRUE(refused.error().retry_after.has_value());
  EXPECT_GE(*refused.error().retry_after, 1);
  EXPECT_EQ("unavailable", outcome(store->find_user("early")));

  // While it is down, refusals cost no connection attempt each.
  const auto started = SteadyClock::now();
  for (int i = 0; i < 100; ++i) EXPECT_EQ("unavailable", outcome(store->find_user("x")));
  EXPECT_LT(SteadyClock::now() - started, 1s);

  cluster.start();
  EXPECT_TRUE(within(5000ms, [&] { return insert(*store, make_user("late")).has_value(); }));
  EXPECT_EQ("ok", outcome(store->find_user("late")));
  // The schema was created on the first connection.
  EXPECT_EQ("1", cluster.psql("authd", "SELECT count(*) FROM users"));
}

TEST(PostgresStore, RestartedDatabaseLosesNothingAndConnectionsAreReplaced) {
  PgCluster cluster = PgCluster::create();
  cluster.start();
  cluster.psql("postgres", "CREATE DATABASE authd");
  auto store = open(options_for(cluster.url("authd")));
  ASSERT_TRUE(store);
  // Several pooled connections, all of which the restart kills.
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i)
    threads.emplace_back([&, i] { EXPECT_EQ("ok", outcome(insert(*store, make_user("before" + std::to_string(i))))); });
  for (auto& thread : threads) thread.join();

  cluster.stop("fast");
  cluster.start();
  // The first write after the restart already works: dead pooled connections
  // are noticed and replaced (or the transaction is run again on a new one).
  EXPECT_EQ("ok", outcome(insert(*store, make_user("after"))));
  for (int i = 0; i < 4; ++i) EXPECT_EQ("ok", outcome(store->find_user("before" + std::to_string(i))));
  EXPECT_EQ("5", cluster.psql("authd", "SELECT count(*) FROM users"));
}

TEST(PostgresStore, NoStatementWaitsLongerThanTheTimeout) {
  PgDatabase db("timeout");
  auto options = options_for(db.url());
  options.statement_timeout = 300ms;
  auto store = open(options);
  ASSERT_TRUE(store);
  ASSERT_EQ("ok", outcome(insert(*store, make_user("locked"))));

  std::atomic<bool> holding{false};
  std::thread holder([&] {
    auto held = store->write([&](StoreTxn& txn) -> Result<void> {
      if (auto ok = txn.replace_user(make_user("locked", Role::admin)); !ok) return ok;
      holding = true;
      std::this_thread::sleep_for(1500ms);  // keeps the row locked
      return {};
    });
    (void)held;
  });
  while (!holding) std::this_thread::sleep_for(1ms);
  const auto started = SteadyClock::now();
  auto blocked = store->write([&](StoreTxn& txn) { return txn.replace_user(make_user("locked", Role::editor)); });
  const auto waited = SteadyClock::now() - started;
  holder.join();
  ASSERT_FALSE(blocked);
  EXPECT_EQ(Errc::unavailable, blocked.error().code);
  EXPECT_LT(waited, 1000ms) << "waited " << std::chrono::duration_cast<std::chrono::milliseconds>(waited).count() << " ms";
}

TEST(PostgresStore, NodesStartingTogetherMigrateExactlyOnce) {
  PgDatabase db("migrate");
  const std::string url = db.url();
  constexpr int kNodes = 8;
  std::vector<std::thread> nodes;
  std::atomic<int> ok{0};
  for (int i = 0; i < kNodes; ++i)
    nodes.emplace_back([&, i] {
      auto store = open_postgres_store(options_for(url));
      if (store && insert(**store, make_user("node" + std::to_string(i)))) ++ok;
    });
  for (auto& node : nodes) node.join();
  EXPECT_EQ(kNodes, ok.load());
  EXPECT_EQ("t|t", db.psql("SELECT count(*) >= 1, count(*) = count(DISTINCT version) FROM schema_migrations"));
  EXPECT_EQ("8", db.psql("SELECT count(*) FROM users"));
}

// list_users with UserQuery::email (POST /password/forgot) reads through the
// index of migration 006, not the whole users table.
TEST(PostgresStore, TheUsersOfAnAddressAreFoundThroughAnIndex) {
  PgDatabase db("email");
  auto store = open(options_for(db.url()));
  ASSERT_TRUE(store);
  ASSERT_TRUE(insert(*store, make_user("alice")).has_value());
  const std::string plan = db.psql(
      "SET enable_seqscan = off; EXPLAIN (COSTS OFF) SELECT username FROM users "
      "WHERE lower(email COLLATE \"C\") = lower('SomeOne@example.org'::text COLLATE \"C\")");
  EXPECT_NE(std::string::npos, plan.find("users_email_lower")) << plan;
}

TEST(PostgresStore, PasswordComesFromPgpassfile) {
  PgDatabase db("pass");
  PgCluster& cluster = db.cluster();
  cluster.psql("postgres", "DO $$ BEGIN CREATE ROLE authd_pw LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$");
  cluster.psql("postgres", "ALTER ROLE authd_pw PASSWORD 'correct horse'");
  db.psql("GRANT ALL ON SCHEMA public TO authd_pw");
  const std::string url = db.tcp_url() + " user=authd_pw";  // TCP: this role needs its password there

  test::TempDir dir;
  const auto passfile = dir.path() / "pgpass";
  {
    std::ofstream out(passfile);
    out << "127.0.0.1:*:*:authd_pw:correct horse\n";
  }
  ::chmod(passfile.c_str(), 0600);  // libpq ignores a passfile others can read

  ::setenv("PGPASSFILE", (dir.path() / "missing").c_str(), 1);
  {
    auto store = open(options_for(url));
    ASSERT_TRUE(store);
    EXPECT_EQ("unavailable", outcome(insert(*store, make_user("nopass"))));
  }
  ::setenv("PGPASSFILE", passfile.c_str(), 1);
  {
    auto store = open(options_for(url));
    ASSERT_TRUE(store);
    EXPECT_EQ("ok", outcome(insert(*store, make_user("withpass"))));
  }
  ::unsetenv("PGPASSFILE");
  ::setenv("PGPASSWORD", "correct horse", 1);
  {
    auto store = open(options_for(url));
    ASSERT_TRUE(store);
    EXPECT_EQ("ok", outcome(insert(*store, make_user("withenv"))));
  }
  ::unsetenv("PGPASSWORD");
}

TEST(PostgresStore, CacheFollowsChangesMadeInSqlByHand) {
  PgDatabase db("byhand");
  auto store = open(options_for(db.url()));
  ASSERT_TRUE(store);
  ASSERT_EQ("ok", outcome(insert(*store, make_user("quinn", Role::admin))));
  ASSERT_EQ(Role::admin, store->find_user("quinn")->role);
  ASSERT_EQ(Role::admin, store->find_user("quinn")->role);  // cached now

  db.psql("UPDATE users SET role = 'user' WHERE username = 'quinn'");
  EXPECT_TRUE(role_becomes(*store, "quinn", Role::user));
  db.psql("DELETE FROM users");
  EXPECT_TRUE(within(1000ms, [&] { return !store->find_user("quinn"); }));
}

TEST(PostgresStore, LostListenConnectionDropsTheCache) {
  PgDatabase db("listen");
  auto store = open(options_for(db.url()));
  ASSERT_TRUE(store);
  ASSERT_EQ("ok", outcome(insert(*store, make_user("rose", Role::admin))));
  ASSERT_TRUE(within(2000ms, [&] {  // the listener is up once answers are cached
    return store->find_user("rose").has_value() && listeners(db) == "1";
  }));
  ASSERT_EQ(Role::admin, store->find_user("rose")->role);

  // Kill the LISTEN connection, then change the user: that notification
  // reaches nobody. The cache must not answer from before the change.
  db.psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN authd_users%' AND "
          "datname = current_database(); UPDATE users SET role = 'user' WHERE username = 'rose'");
  EXPECT_TRUE(role_becomes(*store, "rose", Role::user));
  // And it listens again by itself.
  EXPECT_TRUE(within(5000ms, [&] { return listeners(db) == "1"; }));
  db.psql("UPDATE users SET role = 'writer' WHERE username = 'rose'");
  EXPECT_TRUE(role_becomes(*store, "rose", Role::writer));
}

// The records list is served from a cache (records_cache.hpp): a change made
// through this store shows at once, one made elsewhere (another node, SQL by
// hand) within a second, through NOTIFY authd_records.
TEST(PostgresStore, RecordsListFollowsEveryChange) {
  PgDatabase db("records_cache");
  auto store = open(options_for(db.url()));
  ASSERT_TRUE(store);
  auto listed = [&] { return read_value(*store, [](StoreTxn& txn) { return txn.list_records(); }).value_or("error"); };
  ASSERT_TRUE(within(2000ms, [&] { return listeners(db) == "1"; }));  // the listener is up
  EXPECT_EQ("[]", listed());
  EXPECT_EQ("[]", listed());  // cached now
  ASSERT_TRUE(store->write([](StoreTxn& txn) { return txn.insert_record("a1", R"({"_id":"a1"})"); }));
  EXPECT_EQ(R"([{"_id":"a1"}])", listed()) << "a write through this store shows at once";
  EXPECT_EQ(R"([{"_id":"a1"}])", listed());
  db.psql(R"(INSERT INTO records (id, body) VALUES ('b2', '{"_id":"b2"}'))");
  EXPECT_TRUE(within(1000ms, [&] { return listed() == R"([{"_id":"a1"},{"_id":"b2"}])"; }))
      << "a change made elsewhere shows within a second";
  db.psql("DELETE FROM records");
  EXPECT_TRUE(within(1000ms, [&] { return listed() == "[]"; }));
}

// The capability read (Store::find_record) is served from the same cache: a
// record changed by SQL by hand shows within a second, and while the LISTEN
// connection is lost nothing is served from it.
TEST(PostgresStore, FindRecordFollowsChangesMadeElsewhere) {
  PgDatabase db("record_cache");
  auto store = open(options_for(db.url()));
  ASSERT_TRUE(store);
  auto found = [&] { return store->find_record("c3").value_or("missing"); };
  ASSERT_TRUE(within(2000ms, [&] { return listeners(db) == "1"; }));  // the listener is up
  ASSERT_TRUE(store->write([](StoreTxn& txn) { return txn.insert_record("c3", R"({"v":1})"); }));
  EXPECT_EQ(R"({"v":1})", found());
  EXPECT_EQ(R"({"v":1})", found());  // cached now
  db.psql(R"(UPDATE records SET body = '{"v":2}' WHERE id = 'c3')");
  EXPECT_TRUE(within(1000ms, [&] { return found() == R"({"v":2})"; })) << "an update made elsewhere shows within a second";
  db.psql("DELETE FROM records WHERE id = 'c3'");
  EXPECT_TRUE(within(1000ms, [&] { return found() == "missing"; })) << "and a deletion";
}

}  // namespace
}  // namespace authd
