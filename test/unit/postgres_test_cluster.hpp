// Throw-away PostgreSQL clusters for the unit tests, through the same script
// as the black-box suite (test/postgres/cluster.sh): never the system's
// default cluster.
//
// shared(): the cluster of this CTest run (started by the fixture test
// postgres.cluster_start, named by $TEST_PG_STATE), or, when the test
// binary runs by hand, one of its own, removed at exit. PgDatabase: one
// test's own database in it, dropped at the end of its scope.
#pragma once

#include <string>

namespace authd::test {

// Runs `command` in bash after sourcing cluster.sh; returns its stdout.
// Throws std::runtime_error (with the output) when it exits non-zero.
std::string cluster_shell(const std::string& command);
std::string shell_quote(const std::string& text);

class PgCluster {
 public:
  // A new cluster in a new temporary directory (not started).
  static PgCluster create();
  // Adopts a running cluster (does not remove it).
  static PgCluster adopt(std::string dir);
  static PgCluster& shared();

  PgCluster(PgCluster&& other) noexcept;
  PgCluster& operator=(PgCluster&&) = delete;
  ~PgCluster();  // removes a cluster this object created

  void start();
  void stop(const std::string& mode = "fast");
  const std::string& dir() const noexcept { return dir_; }
  std::string url(const std::string& database) const;      // unix socket
  std::string tcp_url(const std::string& database) const;  // 127.0.0.1
  // psql -At -c SQL on `database`: the output, trailing newline removed.
  std::string psql(const std::string& database, const std::string& sql) const;
  // A new empty database with a unique name.
  std::string create_database(const std::string& prefix);
  void drop_database(const std::string& name);

 private:
  PgCluster(std::string dir, bool owned) : dir_(std::move(dir)), owned_(owned) {}
  std::string dir_;
  bool owned_ = false;
};

// A new empty database in the shared cluster, dropped when this object goes
// (declare it before the stores that use it, so that they close first).
class PgDatabase {
 public:
  explicit PgDatabase(const std::string& prefix);
  PgDatabase(const PgDatabase&) = delete;
  PgDatabase& operator=(const PgDatabase&) = delete;
  ~PgDatabase();  // drops it; a failure to drop is not thrown

  PgCluster& cluster() const noexcept { return cluster_; }
  const std::string& name() const noexcept { return name_; }
  std::string url() const { return cluster_.url(name_); }
  std::string tcp_url() const { return cluster_.tcp_url(name_); }
  std::string psql(const std::string& sql) const { return cluster_.psql(name_, sql); }

 private:
  PgCluster& cluster_;
  std::string name_;
};

}  // namespace authd::test
