// Store backends register by name (authd/store_backends.hpp): the `store`
// setting accepts the registered names only, open_store opens the one it
// names, and a program's own backend joins the built-in ones.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "authd/core.hpp"
#include "authd/store_backends.hpp"
#include "fixtures.hpp"
#include "test_support.hpp"

namespace authd {
namespace {

Result<CoreSettings> load(std::map<std::string, std::string> vars) { return test::load_core_settings(std::move(vars)); }

TEST(StoreRegistry, TheBuiltInBackendsComeFirst) {
  const auto names = store_backend_names();
  ASSERT_GE(names.size(), 2u);
  EXPECT_EQ(names[0], "lmdb");
  EXPECT_EQ(names[1], "postgresql");
  ASSERT_NE(find_store_backend("postgresql"), nullptr);
  EXPECT_TRUE(find_store_backend("postgresql")->shared);
  EXPECT_FALSE(find_store_backend("lmdb")->shared);
  EXPECT_EQ(find_store_backend("nosuch"), nullptr);
}

TEST(StoreRegistry, TheSettingTakesRegisteredNamesOnly) {
  auto refused = load({{"AUTHD_STORE", "mongodb"}});
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, Errc::config);
  EXPECT_NE(refused.error().message.find("expected lmdb"), std::string::npos) << refused.error().message;
  auto fine = load({{"AUTHD_STORE", "postgresql"}});
  ASSERT_TRUE(fine) << fine.error().message;
  EXPECT_EQ(fine->store.backend, "postgresql");
  EXPECT_TRUE(shared_store(fine->store));
}

TEST(StoreRegistry, AProgramsOwnBackendIsOpenedByName) {
  test::TempDir dir;
  int opened = 0;
  register_store_backend({"test-lmdb",
                          [&opened, &dir](const StoreSettings&) {
                            ++opened;
                            LmdbOptions options;
                            options.directory = dir.path() / "db";
                            options.map_size_bytes = std::size_t{16} << 20;
                            options.sync = false;
                            return open_lmdb_store(options);
                          },
                          true});
  auto settings = load({{"AUTHD_STORE", "test-lmdb"}});
  ASSERT_TRUE(settings) << settings.error().message;
  auto store = open_store(settings->store);
  ASSERT_TRUE(store) << store.error().message;
  EXPECT_EQ(opened, 1);
  EXPECT_TRUE(shared_store(settings->store));
  StoreSettings unknown;
  unknown.backend = "nosuch";
  EXPECT_EQ(outcome(open_store(unknown)), "config");
  // Leave the registry as the other tests expect it: a no-op backend stays registered.
  register_store_backend({"test-lmdb", [](const StoreSettings&) -> Result<std::unique_ptr<Store>> {
                            return fail(Errc::config, "test backend");
                          }, false});
}

}  // namespace
}  // namespace authd
