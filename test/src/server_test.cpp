// The server's threading contract (server.hpp): a direct request is
// answered on the event loop that read it (no hand-over
// to another thread), several loops share one listening socket, and a
// request for a lane still runs on that lane's threads, its answer going
// back to the connection's loop.
#include "serving/server.hpp"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "fcgi/records.hpp"

namespace authd {
namespace {

class ServerThreads : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir_template[] = "/tmp/authd-server-test.XXXXXX";
    ASSERT_NE(::mkdtemp(dir_template), nullptr);
    dir_ = dir_template;
    socket_path_ = dir_ + "/s.sock";
    listen_fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ASSERT_GE(listen_fd_, 0);
    const sockaddr_un address = unix_address();
    ASSERT_EQ(::bind(listen_fd_, reinterpret_cast<const sockaddr*>(&address), sizeof address), 0);
    ASSERT_EQ(::listen(listen_fd_, 64), 0);
  }

  void TearDown() override {
    if (listen_fd_ >= 0) ::close(listen_fd_);
    std::filesystem::remove_all(dir_);
  }

  sockaddr_un unix_address() const {
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    socket_path_.copy(address.sun_path, sizeof address.sun_path - 1);
    return address;
  }

  // A new connection to the server's socket (-1 on failure); reads on it
  // give up after 10 s.
  int connect_to_server() const {
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const sockaddr_un address = unix_address();
    if (fd >= 0 && ::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
      ::close(fd);
      return -1;
    }
    const timeval patience{10, 0};  // a server that never answers fails the test, not hangs it
    if (fd >= 0) ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &patience, sizeof patience);
    return fd;
  }

  // The records of one GET (request id 1, connection not kept).
  static std::string get_records(const std::string& path) {
    std::string out;
    const char begin[8] = {0, 1 /* responder */, 0 /* not kept */, 0, 0, 0, 0, 0};
    fcgi::append_record(out, fcgi::RecordType::begin_request, 1, std::string_view(begin, sizeof begin));
    std::string params;
    fcgi::append_pair(params, "REQUEST_METHOD", "GET");
    fcgi::append_pair(params, "SCRIPT_NAME", path);
    fcgi::append_pair(params, "REQUEST_URI", path);
    fcgi::append_stream(out, fcgi::RecordType::params, 1, params);
    fcgi::append_stream(out, fcgi::RecordType::stdin_, 1, "");
    return out;
  }

  static void write_all(int fd, std::string_view bytes) {
    std::size_t sent = 0;
    while (sent < bytes.size()) {
      // A server that closes early fails the test, not kills it (SIGPIPE).
      const ssize_t n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) break;
      sent += static_cast<std::size_t>(n);
    }
  }

  // Everything the server sends until it closes; closes `fd`.
  static std::string read_to_end(int fd) {
    std::string answer;
    char buffer[4096];
    for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) > 0;) answer.append(buffer, static_cast<std::size_t>(n));
    ::close(fd);
    return answer;
  }

  // One GET on a new connection (not kept); the raw FastCGI answer.
  std::string get(const std::string& path) const {
    const int fd = connect_to_server();
    if (fd < 0) return {};
    write_all(fd, get_records(path));
    return read_to_end(fd);
  }

  std::string dir_;
  std::string socket_path_;
  int listen_fd_ = -1;
};

// Records the thread each answer ran on, by lane.
struct ThreadLog {
  std::mutex mutex;
  std::set<std::thread::id> direct;
  std::set<std::thread::id> lane;
  std::chrono::milliseconds direct_work{0};  // how long a direct answer takes

  // A job for the store threads instead of a direct answer (what the router
  // makes of a request when the store waits on the network).
  bool direct_on_store_lane = false;

  Prepare prepare() {
    return [this](http::Request request) {
      const bool slow = request.path == "/slow";
      Prepared prepared;
      prepared.lane = slow ? Lane::password : direct_on_store_lane ? Lane::store : Lane::direct;
      prepared.answer = [this, slow] {
        if (!slow) std::this_thread::sleep_for(direct_work);
        {
          std::lock_guard lock(mutex);
          (slow ? lane : direct).insert(std::this_thread::get_id());
        }
        http::Response response;
        response.body = slow ? "slow-ok" : "direct-ok";
        return response;
      };
      return prepared;
    };
  }
};

// One loop answering direct requests inline, one thread per lane.
ServerOptions one_thread_per_lane() {
  ServerOptions options;
  options.event_loops = 1;
  options.hash_workers = 1;
  options.upstream_workers = 1;
  return options;
}

TEST_F(ServerThreads, DirectRequestsAreAnsweredOnTheLoopsAndLaneRequestsOnTheLane) {
  ThreadLog log;
  // Slow enough that concurrent requests would spread over the 8 workers
  // if they were handed over to them.
  log.direct_work = std::chrono::milliseconds(10);
  ServerOptions options;
  options.event_loops = 2;
  options.workers = 8;  // idle: direct requests never leave the loops
  options.hash_workers = 1;
  options.upstream_workers = 1;
  Server server(listen_fd_, options, log.prepare());
  ASSERT_TRUE(server.start().has_value());

  // Concurrent clients, so that both loops get connections.
  std::vector<std::thread> clients;
  std::mutex answers_mutex;
  std::vector<std::string> answers;
  for (int c = 0; c < 4; ++c) {
    clients.emplace_back([&, c] {
      for (int i = 0; i < 25; ++i) {
        std::string answer = get(i % 5 == 0 && c == 0 ? "/slow" : "/fast");
        std::lock_guard lock(answers_mutex);
        answers.push_back(std::move(answer));
      }
    });
  }
  for (auto& client : clients) client.join();
  EXPECT_TRUE(server.stop(std::chrono::seconds(5)));

  ASSERT_EQ(answers.size(), 100u);
  std::size_t slow = 0;
  for (const auto& answer : answers) {
    const bool is_slow = answer.find("slow-ok") != std::string::npos;
    EXPECT_TRUE(is_slow || answer.find("direct-ok") != std::string::npos) << answer;
    slow += is_slow;
  }
  EXPECT_EQ(slow, 5u);
  // Direct answers ran on at most the two loop threads, never on the lane's.
  EXPECT_GE(log.direct.size(), 1u);
  EXPECT_LE(log.direct.size(), 2u);
  ASSERT_EQ(log.lane.size(), 1u);
  EXPECT_EQ(log.direct.count(*log.lane.begin()), 0u);
}

// A loop reads a new connection as soon as it accepts it (the web server
// has most often written its request by then) and registers it with epoll
// only when that read leaves it waiting. Each way must be answered: the
// whole request there before the accept, nothing there yet, half of it.
TEST_F(ServerThreads, ARequestIsAnsweredWhetherItCameBeforeTheAcceptOrAfter) {
  ThreadLog log;
  Server server(listen_fd_, one_thread_per_lane(), log.prepare());

  // Connected and written before the server accepts anything: in the backlog.
  const int before_fast = connect_to_server();
  const int before_slow = connect_to_server();
  ASSERT_GE(before_fast, 0);
  ASSERT_GE(before_slow, 0);
  write_all(before_fast, get_records("/fast"));
  write_all(before_slow, get_records("/slow"));  // handed to the lane before it is registered
  ASSERT_TRUE(server.start().has_value());
  EXPECT_NE(read_to_end(before_fast).find("direct-ok"), std::string::npos);
  EXPECT_NE(read_to_end(before_slow).find("slow-ok"), std::string::npos);

  // Accepted with nothing to read, then written.
  const int later = connect_to_server();
  ASSERT_GE(later, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  write_all(later, get_records("/fast"));
  EXPECT_NE(read_to_end(later).find("direct-ok"), std::string::npos);

  // Half of it before the accept, the rest after.
  const std::string records = get_records("/fast");
  const int split = connect_to_server();
  ASSERT_GE(split, 0);
  write_all(split, std::string_view(records).substr(0, records.size() / 2));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  write_all(split, std::string_view(records).substr(records.size() / 2));
  EXPECT_NE(read_to_end(split).find("direct-ok"), std::string::npos);

  EXPECT_TRUE(server.stop(std::chrono::seconds(5)));
}

// A loop keeps some closed connections and makes new ones anew in their
// place (their buffers' capacity reused, a connection per request costing no
// allocation): one closed in the middle of a request, or after a kept one,
// must leave nothing of itself to the next. Every answer after such closes
// is the same bytes as the first one on a fresh loop.
TEST_F(ServerThreads, AConnectionMadeInPlaceOfAClosedOneStartsFresh) {
  ThreadLog log;
  Server server(listen_fd_, one_thread_per_lane(), log.prepare());
  ASSERT_TRUE(server.start().has_value());
  const std::string first = get("/fast");
  ASSERT_NE(first.find("direct-ok"), std::string::npos);

  const std::string records = get_records("/fast");
  for (int round = 0; round < 3; ++round) {
    // Closed by the web server with half a request sent (input buffered,
    // the parser in the middle of a record).
    const int half = connect_to_server();
    ASSERT_GE(half, 0);
    write_all(half, std::string_view(records).substr(0, records.size() / 2 + 3));
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    ::close(half);
    // A kept connection: a request answered, the next one begun, then closed.
    std::string kept = records;
    kept[fcgi::kHeaderLength + 2] = static_cast<char>(fcgi::kKeepConn);  // the flags of FCGI_BEGIN_REQUEST
    const int kept_fd = connect_to_server();
    ASSERT_GE(kept_fd, 0);
    write_all(kept_fd, kept);
    char buffer[4096];
    ASSERT_GT(::read(kept_fd, buffer, sizeof buffer), 0);
    write_all(kept_fd, std::string_view(kept).substr(0, fcgi::kHeaderLength + 5));
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    ::close(kept_fd);
    std::this_thread::sleep_for(std::chrono::milliseconds(30));  // closed and buried by the loop
    for (int i = 0; i < 3; ++i) EXPECT_EQ(get("/fast"), first) << "round " << round << ", request " << i;
  }
  EXPECT_TRUE(server.stop(std::chrono::seconds(5)));
}

TEST_F(ServerThreads, StoreJobsRunOnTheStoreThreads) {
  ThreadLog log;
  log.direct_work = std::chrono::milliseconds(20);  // concurrent requests overlap on the workers
  log.direct_on_store_lane = true;  // a store that waits on the network
  ServerOptions options;
  options.event_loops = 1;
  options.workers = 3;
  options.hash_workers = 1;
  options.upstream_workers = 1;
  Server server(listen_fd_, options, log.prepare());
  ASSERT_TRUE(server.start().has_value());
  std::vector<std::thread> clients;
  for (int c = 0; c < 6; ++c) {
    clients.emplace_back([&] {
      for (int i = 0; i < 10; ++i) EXPECT_NE(get("/fast").find("direct-ok"), std::string::npos);
    });
  }
  for (auto& client : clients) client.join();
  EXPECT_TRUE(server.stop(std::chrono::seconds(5)));
  // More than one thread answered: the store threads, not the single loop.
  EXPECT_GE(log.direct.size(), 2u);
  EXPECT_LE(log.direct.size(), 3u);
}

// Everything on the upstream lane, where GET /held answers "held-ok" no
// earlier than `hold` from now and any other path "quick-ok" at once.
Prepare held_on_the_upstream_lane(std::chrono::milliseconds hold) {
  return [hold](http::Request request) {
    const bool held = request.path == "/held";
    Prepared prepared;
    prepared.lane = Lane::upstream;
    prepared.answer = [held, hold] {
      http::Response response;
      response.body = held ? "held-ok" : "quick-ok";
      if (held) response.not_before = std::chrono::steady_clock::now() + hold;
      return response;
    };
    return prepared;
  };
}

// An answer with not_before (POST /password/forgot) is sent no earlier, and
// its lane thread is free meanwhile: with one lane thread, a second request
// on that lane is answered long before the first one's time.
TEST_F(ServerThreads, HeldAnswersDoNotHoldTheLaneThread) {
  using namespace std::chrono_literals;
  Server server(listen_fd_, one_thread_per_lane(), held_on_the_upstream_lane(1500ms));
  ASSERT_TRUE(server.start().has_value());
  const auto start = std::chrono::steady_clock::now();
  std::string held_answer;
  std::chrono::steady_clock::duration held_took{};
  std::thread first([&] {
    held_answer = get("/held");
    held_took = std::chrono::steady_clock::now() - start;
  });
  std::this_thread::sleep_for(100ms);  // the held request has gone through the lane
  const std::string quick = get("/quick");
  const auto quick_took = std::chrono::steady_clock::now() - start;
  first.join();
  EXPECT_TRUE(server.stop(std::chrono::seconds(5)));
  EXPECT_NE(held_answer.find("held-ok"), std::string::npos) << held_answer;
  EXPECT_NE(quick.find("quick-ok"), std::string::npos) << quick;
  EXPECT_GE(held_took, 1500ms) << "the held answer waits for its time";
  EXPECT_LT(quick_took, 1200ms) << "the one lane thread was not asleep on the held answer";
}

// Stopping does not wait out a held answer: it is sent at once.
TEST_F(ServerThreads, AStoppingServerSendsHeldAnswersAtOnce) {
  using namespace std::chrono_literals;
  Server server(listen_fd_, one_thread_per_lane(), held_on_the_upstream_lane(60s));
  ASSERT_TRUE(server.start().has_value());
  const auto start = std::chrono::steady_clock::now();
  std::string answer;
  std::thread client([&] { answer = get("/held"); });
  std::this_thread::sleep_for(200ms);
  server.stop(std::chrono::milliseconds(100));
  client.join();
  EXPECT_NE(answer.find("held-ok"), std::string::npos) << answer;
  EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);
}

}  // namespace
}  // namespace authd
