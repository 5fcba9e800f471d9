// database_url may hold a password: printed settings and logs show it masked.
#include <gtest/gtest.h>

#include "authd/postgres_store.hpp"
#include "test_support.hpp"

namespace authd {
namespace {

TEST(PostgresUrl, UriPasswordIsMasked) {
  EXPECT_EQ("postgresql://authd:*****@db1:5432,db2/authd?target_session_attrs=read-write",
            redact_database_url("postgresql://authd:s3cr%40t@db1:5432,db2/authd?target_session_attrs=read-write"));
  EXPECT_EQ("postgres://authd@db/x?sslmode=require&password=*****&application_name=a",
            redact_database_url("postgres://authd@db/x?sslmode=require&password=hunter2&application_name=a"));
}

TEST(PostgresUrl, KeywordPasswordIsMasked) {
  EXPECT_EQ("host=db password=***** user=authd", redact_database_url("host=db password=hunter2 user=authd"));
  EXPECT_EQ("password = ***** host=db", redact_database_url("password = 'two words\\' quote' host=db"));
}

TEST(PostgresUrl, WithoutPasswordUnchanged) {
  for (const char* url : {"", "host=/tmp/x port=5432 dbname=authd", "postgresql:///authd",
                          "postgresql://authd@[::1]:5432/authd?connect_timeout=3", "passwordx=1 host=h"})
    EXPECT_EQ(url, redact_database_url(url));
}

TEST(PostgresUrl, MalformedUrlIsAConfigErrorWithoutThePassword) {
  PostgresOptions options;
  options.database_url = "postgresql://u:hunter2@h/db?nonsense_option=1";
  auto store = open_postgres_store(options);
  ASSERT_FALSE(store);
  EXPECT_EQ(Errc::config, store.error().code);
  EXPECT_EQ(std::string::npos, store.error().message.find("hunter2"));
  options.database_url = "host";
  EXPECT_EQ("config", outcome(open_postgres_store(options)));
}

TEST(PostgresUrl, OptionBoundsAreChecked) {
  PostgresOptions options;
  options.database_url = "host=/nonexistent";
  options.pool_size = 0;
  EXPECT_EQ("config", outcome(open_postgres_store(options)));
  options.pool_size = 4;
  options.statement_timeout = std::chrono::milliseconds(0);
  EXPECT_EQ("config", outcome(open_postgres_store(options)));
}

}  // namespace
}  // namespace authd
