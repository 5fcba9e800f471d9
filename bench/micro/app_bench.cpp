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

#include "program/app.hpp"
#include "fcgi/http_request.hpp"
#include "fcgi/records.hpp"
#include "fcgi/request_parser.hpp"
#include "authd/clock.hpp"
#include "http/response.hpp"
#include "program/log.hpp"
#include "api/router.hpp"
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
  request.param = [&authorization](std::string_view name) -> std::string_view {
    return name == "HTTP_AUTHORIZATION" ? std::string_view(authorization) : std::string_view();
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

// The same guarded read as the event loop serves it from nginx: FastCGI
// records in (BEGIN_REQUEST, the ~30 parameters nginx's fastcgi_params sends,
// empty PARAMS and STDIN), the request decoded and prepared (trusted proxies,
// request id, route), answered, serialised and framed as FCGI_STDOUT +
// FCGI_END_REQUEST. Everything a loop does per request but the system calls.
std::string nginx_request(const std::string& authorization) {
  const char begin[8] = {0, 1, static_cast<char>(fcgi::kKeepConn), 0, 0, 0, 0, 0};
  std::string out;
  fcgi::append_record(out, fcgi::RecordType::begin_request, 1, std::string_view(begin, 8));
  std::string params;
  const std::pair<const char*, std::string> pairs[] = {
      {"QUERY_STRING", ""}, {"REQUEST_METHOD", "GET"}, {"CONTENT_TYPE", ""}, {"CONTENT_LENGTH", ""},
      {"SCRIPT_NAME", "/records"}, {"REQUEST_URI", "/records"}, {"DOCUMENT_URI", "/records"},
      {"DOCUMENT_ROOT", "/usr/share/nginx/html"}, {"SERVER_PROTOCOL", "HTTP/1.1"}, {"REQUEST_SCHEME", "http"},
      {"GATEWAY_INTERFACE", "CGI/1.1"}, {"SERVER_SOFTWARE", "nginx/1.22.1"}, {"REMOTE_ADDR", "127.0.0.1"},
      {"REMOTE_PORT", "51234"}, {"REMOTE_USER", ""}, {"SERVER_ADDR", "127.0.0.1"}, {"SERVER_PORT", "8080"},
      {"SERVER_NAME", "localhost"}, {"REDIRECT_STATUS", "200"}, {"PATH_INFO", ""},
      {"HTTP_HOST", "127.0.0.1:8080"}, {"HTTP_AUTHORIZATION", authorization}, {"HTTP_USER_AGENT", "wrk"},
      {"HTTP_ACCEPT", "*/*"}, {"HTTP_CONNECTION", "keep-alive"}};
  for (const auto& [name, value] : pairs) fcgi::append_pair(params, name, value);
  fcgi::append_stream(out, fcgi::RecordType::params, 1, params);
  fcgi::append_stream(out, fcgi::RecordType::stdin_, 1, "");
  return out;
}

void BM_Fcgi_GuardedRead(benchmark::State& state) {
  auto& w = app_world();
  const std::string wire = nginx_request(w.authorization);
  const fcgi::Limits limits;
  fcgi::RequestParser parser(limits);
  std::string replies, out, answer_bytes;
  const auto before = allocations();
  for (auto _ : state) {
    parser.append(wire);
    const auto step = parser.next(replies);
    if (step.kind != fcgi::Step::Kind::request) state.SkipWithError("not a request");
    Prepared prepared = prepare(*w.app, fcgi::to_http_request(parser.take_request()));
    const auto response = prepared.take_answer();
    if (response.status != 200) state.SkipWithError(("unexpected status " + std::to_string(response.status)).c_str());
    out.clear();
    answer_bytes.clear();  // as Lease::answer: serialized into a kept buffer, then framed
    http::serialize_into(answer_bytes, response);
    fcgi::append_response(out, parser.request_id(), answer_bytes);
    benchmark::DoNotOptimize(out);
  }
  report_allocations(state, before);
}
BENCHMARK(BM_Fcgi_GuardedRead);

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
