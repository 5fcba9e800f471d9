// Requests are counted per thread (src/serving/metrics.cpp): /metrics must still
// show every thread's count, of threads still running and of threads that
// have ended, summed per route and status.
#include "serving/metrics.hpp"

#include <gtest/gtest.h>

#include <string>
#include <thread>

namespace authd {
namespace {

std::string line(std::string_view route, int status, int count) {
  return "authd_http_requests_total{route=\"" + std::string(route) + "\",status=\"" + std::to_string(status) + "\"} " +
         std::to_string(count) + "\n";
}

TEST(Metrics, RequestsOfEveryThreadAreSummedIncludingEndedOnes) {
  constexpr std::string_view route = "/metrics-test/summed";
  metrics::request_done(route, 200, 0.0001);
  std::thread ended([&] {
    metrics::request_done(route, 200, 0.0001);
    metrics::request_done(route, 401, 0.002);
  });
  ended.join();
  std::string text = metrics::render_requests();
  EXPECT_NE(text.find(line(route, 200, 2)), std::string::npos) << text;
  EXPECT_NE(text.find(line(route, 401, 1)), std::string::npos) << text;
  EXPECT_NE(text.find("authd_http_request_duration_seconds_count{route=\"/metrics-test/summed\"} 3\n"),
            std::string::npos)
      << text;
  // 0.0001 s twice in the first bucket; 0.002 s first counted at le="0.0025".
  EXPECT_NE(text.find("authd_http_request_duration_seconds_bucket{route=\"/metrics-test/summed\",le=\"0.0005\"} 2\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("authd_http_request_duration_seconds_bucket{route=\"/metrics-test/summed\",le=\"0.0025\"} 3\n"),
            std::string::npos)
      << text;

  // A thread started after one ended counts on top of what that one counted.
  std::thread later([&] { metrics::request_done(route, 200, 0.0001); });
  later.join();
  text = metrics::render_requests();
  EXPECT_NE(text.find(line(route, 200, 3)), std::string::npos) << text;
}

TEST(Metrics, ConcurrentThreadsLoseNoCount) {
  constexpr std::string_view route = "/metrics-test/concurrent";
  constexpr int kPerThread = 10000;
  std::thread a([&] {
    for (int i = 0; i < kPerThread; ++i) metrics::request_done(route, 200, 0.0001);
  });
  std::thread b([&] {
    for (int i = 0; i < kPerThread; ++i) metrics::request_done(route, 200, 0.0001);
  });
  for (int i = 0; i < 100; ++i) (void)metrics::render_requests();  // scrapes while they count
  a.join();
  b.join();
  const std::string text = metrics::render_requests();
  EXPECT_NE(text.find(line(route, 200, 2 * kPerThread)), std::string::npos) << text;
}

}  // namespace
}  // namespace authd
