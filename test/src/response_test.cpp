// The CGI form of an answer (src/http/response.*), as every front server reads it.
#include "http/response.hpp"

#include <gtest/gtest.h>

#include <string>

namespace authd::http {
namespace {

TEST(Response, SerializedAsStatusHeadersLengthAndBody) {
  auto response = Response::json_text(201, R"({"ok":true})");
  response.header("X-Request-Id", "0123456789abcdef");
  EXPECT_EQ(serialize(response),
            "Status: 201 Created\r\n"
            "Content-Type: application/json\r\n"
            "X-Request-Id: 0123456789abcdef\r\n"
            "Content-Length: 11\r\n"
            "\r\n"
            R"({"ok":true})");
}

TEST(Response, NoHeadersNoBody) {
  Response response;
  response.status = 204;
  EXPECT_EQ(serialize(response), "Status: 204 No Content\r\nContent-Length: 0\r\n\r\n");
  response.status = 299;
  EXPECT_EQ(serialize(response), "Status: 299 Unknown\r\nContent-Length: 0\r\n\r\n");
}

TEST(Response, EmptyHeaderValueAndALargeBody) {
  Response response;
  response.status = 200;
  response.header("X-Empty", "");
  response.body = std::string(100000, 'b');
  const std::string wire = serialize(response);
  EXPECT_EQ(wire.substr(0, 58), "Status: 200 OK\r\nX-Empty: \r\nContent-Length: 100000\r\n\r\nbbbbb");
  EXPECT_EQ(wire.size(), 53 + response.body.size());
}

TEST(Response, SerializeIntoAppendsToWhatIsThere) {
  Response response;
  response.status = 404;
  response.body = "{}";
  std::string out = "before|";
  serialize_into(out, response);
  EXPECT_EQ(out, "before|Status: 404 Not Found\r\nContent-Length: 2\r\n\r\n{}");
  serialize_into(out, response);
  EXPECT_EQ(out, "before|" + serialize(response) + serialize(response));
}

}  // namespace
}  // namespace authd::http
