#include "postgres_test_cluster.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <mutex>
#include <stdexcept>

namespace authd::test {

std::string shell_quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

std::string cluster_shell(const std::string& command) {
  const std::string script = std::string("source ") + shell_quote(AUTHD_SOURCE_DIR "/test/postgres/cluster.sh") +
                             " && " + command;
  const std::string line = "bash -c " + shell_quote(script) + " 2>&1";
  FILE* pipe = ::popen(line.c_str(), "r");
  if (!pipe) throw std::runtime_error("popen failed");
  std::string out;
  char buffer[4096];
  std::size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
  const int status = ::pclose(pipe);
  if (status != 0) throw std::runtime_error("cluster.sh: `" + command + "` failed: " + out);
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

PgCluster PgCluster::create() { return PgCluster(cluster_shell("pg_cluster_new"), true); }
PgCluster PgCluster::adopt(std::string dir) { return PgCluster(std::move(dir), false); }

PgCluster::PgCluster(PgCluster&& other) noexcept : dir_(std::move(other.dir_)), owned_(other.owned_) {
  other.owned_ = false;
  other.dir_.clear();
}

PgCluster::~PgCluster() {
  if (!owned_ || dir_.empty()) return;
  try {
    cluster_shell("pg_cluster_remove " + shell_quote(dir_));
  } catch (...) {
  }
}

PgCluster& PgCluster::shared() {
  static std::unique_ptr<PgCluster> cluster;
  static std::once_flag once;
  std::call_once(once, [] {
    if (const char* state = std::getenv("TEST_PG_STATE"); state && *state) {
      std::string dir = cluster_shell(". " + shell_quote(state) + " && echo \"$PG_TEST_DIR\"");
      cluster = std::make_unique<PgCluster>(adopt(dir));
      return;
    }
    cluster = std::make_unique<PgCluster>(create());
    cluster->start();
    // Removed when the test program exits (static destruction).
  });
  return *cluster;
}

void PgCluster::start() { cluster_shell("pg_cluster_start " + shell_quote(dir_)); }
void PgCluster::stop(const std::string& mode) { cluster_shell("pg_cluster_stop " + shell_quote(dir_) + " " + mode); }

std::string PgCluster::url(const std::string& database) const {
  return cluster_shell("pg_url " + shell_quote(dir_) + " " + shell_quote(database));
}
std::string PgCluster::tcp_url(const std::string& database) const {
  return cluster_shell("pg_tcp_url " + shell_quote(dir_) + " " + shell_quote(database));
}

std::string PgCluster::psql(const std::string& database, const std::string& sql) const {
  return cluster_shell("pg_psql " + shell_quote(dir_) + " " + shell_quote(database) + " -At -c " + shell_quote(sql));
}

std::string PgCluster::create_database(const std::string& prefix) {
  static std::atomic<int> counter{0};
  const std::string name = prefix + "_" + std::to_string(::getpid()) + "_" + std::to_string(counter++);
  psql("postgres", "CREATE DATABASE " + name);
  return name;
}

void PgCluster::drop_database(const std::string& name) {
  psql("postgres", "DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
}

PgDatabase::PgDatabase(const std::string& prefix)
    : cluster_(PgCluster::shared()), name_(cluster_.create_database(prefix)) {}

PgDatabase::~PgDatabase() {
  try {
    cluster_.drop_database(name_);
  } catch (...) {
  }
}

}  // namespace authd::test
