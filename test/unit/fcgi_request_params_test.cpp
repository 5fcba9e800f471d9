// A request's FastCGI parameters (src/fcgi/request_params.*): the name index
// answers as a plain search would, and blocks are recycled per thread only
// once nothing but the pool holds them (a request at a worker keeps its own).
#include "fcgi/request_params.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace authd::fcgi {
namespace {

// find() through the name index answers what reading every pair in order
// would: the first pair of a name, nothing for a name not sent, at any number
// of pairs (past the index's 48, by reading them all), with names that share
// a slot, repeated names and an empty one.
TEST(FcgiRequestParams, FindAnswersTheFirstPairOfTheName) {
  std::mt19937 random(7);
  const std::vector<std::string> names = {"", "A", "B", "HTTP_HOST", "HTTP_X_FORWARDED_FOR", "HTTP_X_FORWARDED_HOST",
                                          "REMOTE_ADDR", "REMOTE_PORT", "QUERY_STRING", "HTTP_COOKIE", "FCGI_ROLE",
                                          "HTTP_AUTHORIZATION", "SCRIPT_NAME", "PATH_INFO", "X1", "X2"};
  for (int round = 0; round < 300; ++round) {
    const std::size_t count = random() % 80;
    Params sent;
    std::string encoded;
    for (std::size_t i = 0; i < count; ++i) {
      std::string name = random() % 3 == 0 ? names[random() % names.size()] : "N" + std::to_string(random() % 100);
      std::string value = "v" + std::to_string(i);
      append_pair(encoded, name, value);
      sent.emplace_back(std::move(name), std::move(value));
    }
    RequestParams params;
    ASSERT_TRUE(params.decode(encoded, "RESPONDER", 1000));
    sent.insert(sent.begin(), {"FCGI_ROLE", "RESPONDER"});
    ASSERT_EQ(params.size(), sent.size());
    auto first_of = [&](std::string_view name) -> std::optional<std::string_view> {
      for (const auto& [key, value] : sent) {
        if (key == name) return std::string_view(value);
      }
      return std::nullopt;
    };
    for (std::size_t n = 0; n < 100; ++n) {
      const std::string name = n < names.size() ? names[n] : "N" + std::to_string(n);
      EXPECT_EQ(params.find(name), first_of(name)) << "round " << round << ", " << count << " pairs, name '" << name << "'";
    }
  }
}

std::shared_ptr<RequestParams> decoded(std::string_view name, std::string_view value) {
  auto params = RequestParams::acquire();
  std::string encoded;
  append_pair(encoded, name, value);
  params->append_encoded(encoded);
  EXPECT_TRUE(params->decode("RESPONDER", 100));
  return params;
}

TEST(FcgiRequestParamsPool, ABlockIsTakenAgainOnlyOnceNothingElseHoldsIt) {
  auto a = decoded("A", "1");
  auto b = decoded("B", "2");
  EXPECT_NE(a.get(), b.get()) << "a block still held is never handed out again";
  EXPECT_EQ(a->find("A"), "1");
  EXPECT_EQ(b->find("B"), "2");

  RequestParams* const was = b.get();
  b.reset();
  auto c = RequestParams::acquire();
  EXPECT_EQ(c.get(), was) << "a block nothing holds is reused";
  EXPECT_TRUE(c->empty());
  EXPECT_EQ(c->encoded_size(), 0u);
  EXPECT_EQ(c->find("B"), std::nullopt);
  EXPECT_EQ(a->find("A"), "1");
}

TEST(FcgiRequestParamsPool, EveryBlockHeldMeansANewOne) {
  std::vector<std::shared_ptr<RequestParams>> held;
  for (int i = 0; i < 40; ++i) held.push_back(decoded("N", std::to_string(i)));
  for (int i = 0; i < 40; ++i) EXPECT_EQ(held[i]->find("N"), std::to_string(i)) << i;
}

// A request answered on another thread lets go of its block there; the
// thread that made it takes it again afterwards.
TEST(FcgiRequestParamsPool, ABlockReleasedOnAnotherThreadComesBack) {
  auto block = decoded("X", "from a worker");
  RequestParams* const was = block.get();
  std::string seen;
  std::thread worker([held = std::move(block), &seen]() mutable {
    seen = std::string(held->find("X").value_or(""));
    held.reset();
  });
  worker.join();
  EXPECT_EQ(seen, "from a worker");
  auto again = RequestParams::acquire();
  EXPECT_EQ(again.get(), was);
  EXPECT_TRUE(again->empty());
}

}  // namespace
}  // namespace authd::fcgi
