// The whole in-process cost of a request, without FastCGI and lighttpd:
// resolve() + respond() (route match + guard + handler + error mapping) and the CGI
// serialisation of the response, on a real App over a fresh state directory.
// Compare with the per-request budget the end-to-end run leaves
// (1 / ceiling req/s per core).
//
// Uses the FastCGI program's internals (src/: App, resolve/respond, http::Request);
// follow their changes here.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "app.hpp"
#include "authd/clock.hpp"
#include "http/response.hpp"
#include "log.hpp"
#include "routes.hpp"
#include "routes.hpp"
#include "support.hpp"

namespace authd::bench {
namespace {

struct AppWorld {
  std::filesystem::path dir;
  std::unique_ptr<App> app;
  std::string authorization;   // Bearer <token> of a role-user account
  std::string tampered;        // the same with a changed signature character
  std::string record_path;     // /records/<id> of an existing record

  AppWorld() {
    dir = temp_dir("authd-micro-app");
    ProgramSettings settings;
    settings.core.store.lmdb.directory = dir;
    settings.core.store.lmdb.sync = false;
    settings.core.store.map_size_mb = 64;
    log::set_level("error");
    auto made = App::create(std::move(settings));
    if (!made) {
      std::fprintf(stderr, "App::create: %s\n", made.error().message.c_str());
      std::exit(1);
    }
    app = std::move(*made);
    User bob;
    bob.id = new_object_id();
    bob.username = "bob";
    bob.password_hash = "$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHQ$aGFzaA";
    if (!app->core->store().write([&](StoreTxn& txn) { return txn.insert_user(bob); })) std::exit(1);
    const User* user = &bob;
    const auto token = app->core->tokens().issue(kAccessTokenType, user->id, user->username, unix_now());
    authorization = "Bearer " + token;
    tampered = authorization;
    const auto mid = tampered.rfind('.') + 10;
    tampered[mid] = tampered[mid] == 'A' ? 'B' : 'A';
    Json fields = Json::object();
    fields.set("title", Json::string("benchmark record"));
    auto record = app->core->records().create("bob", fields);
    if (!record) std::exit(1);
    record_path = "/records/" + std::string(record->get_string("_id").value_or(""));
  }
  ~AppWorld() {
    app.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
};

AppWorld& app_world() {
  static AppWorld w;
  return w;
}

void run(benchmark::State& state, const std::string& method, const std::string& path,
         const std::string& authorization, int expected) {
  auto& w = app_world();
  http::Request request;
  request.method = method;
  request.path = path;
  request.param = [&authorization](const char* name) -> std::string_view {
    return std::string_view(name) == "HTTP_AUTHORIZATION" ? std::string_view(authorization) : std::string_view();
  };
  const auto before = allocations();
  for (auto _ : state) {
    auto response = respond(*w.app, request, resolve(request));
    if (response.status != expected) state.SkipWithError(("unexpected status " + std::to_string(response.status)).c_str());
    auto wire = http::serialize(response);
    benchmark::DoNotOptimize(wire);
  }
  report_allocations(state, before);
}

void BM_App_GetRecords(benchmark::State& state) {
  auto& w = app_world();
  run(state, "GET", "/records", w.authorization, 200);
}
BENCHMARK(BM_App_GetRecords);

void BM_App_GetRecordById(benchmark::State& state) {
  auto& w = app_world();
  run(state, "GET", w.record_path, w.authorization, 200);
}
BENCHMARK(BM_App_GetRecordById);

void BM_App_DeleteDenied(benchmark::State& state) {
  auto& w = app_world();
  run(state, "DELETE", w.record_path, w.authorization, 403);
}
BENCHMARK(BM_App_DeleteDenied);

void BM_App_TamperedToken(benchmark::State& state) {
  auto& w = app_world();
  run(state, "GET", "/records", w.tampered, 401);
}
BENCHMARK(BM_App_TamperedToken);

}  // namespace
}  // namespace authd::bench
