#include "authd/json.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "test_support.hpp"

namespace authd {
namespace {

TEST(Json, ParsesAnObject) {
  auto parsed = Json::parse(R"({"a": "x", "b": 42, "c": [1, 2, 3], "d": {"e": true}})");
  ASSERT_TRUE(parsed.has_value()) << parsed.error().message;
  const Json& doc = *parsed;
  EXPECT_TRUE(doc.is_object());
  EXPECT_EQ(doc.size(), 4u);
  EXPECT_EQ(doc.get_string("a"), "x");
  EXPECT_EQ(doc.get_integer("b"), 42);
  EXPECT_TRUE(doc.get("c").is_array());
  EXPECT_EQ(doc.get("c").size(), 3u);
  EXPECT_EQ(doc.get("c").at(2).as_integer(), 3);
  EXPECT_TRUE(doc.get("d").is_object());
  EXPECT_TRUE(doc.has("d"));
  EXPECT_FALSE(doc.has("z"));
  EXPECT_EQ(doc.keys(), (std::vector<std::string>{"a", "b", "c", "d"}));
}

TEST(Json, ParsesScalarsAtTopLevel) {
  auto s = Json::parse(R"("hello")");
  ASSERT_TRUE(s.has_value()) << s.error().message;
  EXPECT_TRUE(s->is_string());
  EXPECT_EQ(s->as_string(), "hello");

  auto n = Json::parse("-17");
  ASSERT_TRUE(n.has_value()) << n.error().message;
  EXPECT_TRUE(n->is_integer());
  EXPECT_EQ(n->as_integer(), -17);

  auto nul = Json::parse("null");
  ASSERT_TRUE(nul.has_value()) << nul.error().message;
  EXPECT_TRUE(nul->is_null());
}

TEST(Json, BadJsonIsBadRequestWithLineAndColumn) {
  auto parsed = Json::parse("{\"a\": 1,\n  \"b\": }");
  ASSERT_FALSE(parsed.has_value());
  EXPECT_EQ(parsed.error().code, Errc::invalid_input);
  const std::string& msg = parsed.error().message;
  EXPECT_NE(msg.find("line"), std::string::npos) << msg;
  EXPECT_NE(msg.find("column"), std::string::npos) << msg;
  EXPECT_NE(msg.find("line 2"), std::string::npos) << msg;
}

TEST(Json, RejectsVariousMalformedTexts) {
  for (const char* bad : {"", "   ", "{", "}", "{\"a\"}", "{\"a\":}", "[1,]", "{'a':1}",
                          "{\"a\":1,}", "nul", "\"unterminated", "{\"a\":01}"}) {
    auto parsed = Json::parse(bad);
    EXPECT_FALSE(parsed.has_value()) << '"' << bad << '"';
    if (!parsed) {
      EXPECT_EQ(parsed.error().code, Errc::invalid_input) << bad;
    }
  }
}

TEST(Json, RejectsDuplicateKeys) {
  auto parsed = Json::parse(R"({"a": 1, "a": 2})");
  ASSERT_FALSE(parsed.has_value());
  EXPECT_EQ(parsed.error().code, Errc::invalid_input);

  auto nested = Json::parse(R"({"x": {"role": "user", "role": "admin"}})");
  ASSERT_FALSE(nested.has_value());
  EXPECT_EQ(nested.error().code, Errc::invalid_input);
}

TEST(Json, RejectsTrailingGarbage) {
  for (const char* bad : {"{} x", "{}{}", "[1] 2", "{\"a\":1}}", "1 2"}) {
    auto parsed = Json::parse(bad);
    EXPECT_FALSE(parsed.has_value()) << bad;
    if (!parsed) {
      EXPECT_EQ(parsed.error().code, Errc::invalid_input) << bad;
    }
  }
  // Trailing whitespace is not garbage.
  auto ok = Json::parse("{\"a\":1}  \n");
  EXPECT_TRUE(ok.has_value()) << ok.error().message;
}

std::string nested_arrays(std::size_t depth) {
  return std::string(depth, '[') + std::string(depth, ']');
}

TEST(Json, DepthLimit) {
  EXPECT_TRUE(Json::parse(nested_arrays(4), 4).has_value());
  auto too_deep = Json::parse(nested_arrays(5), 4);
  ASSERT_FALSE(too_deep.has_value());
  EXPECT_EQ(too_deep.error().code, Errc::invalid_input);

  // Objects count too.
  EXPECT_TRUE(Json::parse(R"({"a":{"b":{}}})", 3).has_value());
  EXPECT_FALSE(Json::parse(R"({"a":{"b":{"c":{}}}})", 3).has_value());

  // Default limit (32) rejects something absurdly deep without crashing.
  EXPECT_TRUE(Json::parse(nested_arrays(20)).has_value());
  EXPECT_FALSE(Json::parse(nested_arrays(100000)).has_value());
}

TEST(Json, BuildAndDumpPreservesInsertionOrder) {
  Json user = Json::object();
  user.set("__v", Json::integer(0));
  user.set("_id", Json::string("0123456789abcdef01234567"));
  user.set("acl", Json::array());
  user.set("role", Json::string("user"));
  user.set("username", Json::string("alice"));
  Json body = Json::object();
  body.set("token", Json::string("t.o.k"));
  body.set("user", user);
  EXPECT_EQ(body.dump(),
            R"({"token":"t.o.k","user":{"__v":0,"_id":"0123456789abcdef01234567","acl":[],)"
            R"("role":"user","username":"alice"}})");
  EXPECT_EQ(body.keys(), (std::vector<std::string>{"token", "user"}));
}

TEST(Json, DumpOrderIsInsertionNotAlphabetical) {
  Json obj = Json::object();
  obj.set("z", Json::integer(1));
  obj.set("a", Json::integer(2));
  obj.set("m", Json::boolean(false));
  obj.set("n", Json::null());
  EXPECT_EQ(obj.dump(), R"({"z":1,"a":2,"m":false,"n":null})");
}

TEST(Json, ParsedDocumentDumpsInDocumentOrder) {
  auto parsed = Json::parse(R"({ "b" : 1, "a" : [ true, null ] })");
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->dump(), R"({"b":1,"a":[true,null]})");
}

TEST(Json, ArrayAppendAndAt) {
  Json arr = Json::array();
  arr.append(Json::integer(1)).append(Json::string("two"));
  EXPECT_EQ(arr.size(), 2u);
  EXPECT_EQ(arr.at(0).as_integer(), 1);
  EXPECT_EQ(arr.at(1).as_string(), "two");
  EXPECT_TRUE(arr.at(5).is_null());
  EXPECT_EQ(arr.dump(), R"([1,"two"])");
}

TEST(Json, SetAndAppendAreNoOpsOnWrongType) {
  Json arr = Json::array();
  arr.set("k", Json::integer(1));
  EXPECT_EQ(arr.dump(), "[]");
  Json obj = Json::object();
  obj.append(Json::integer(1));
  EXPECT_EQ(obj.dump(), "{}");
}

TEST(Json, SetReplacesAndEraseRemoves) {
  Json obj = Json::object();
  obj.set("a", Json::integer(1));
  obj.set("b", Json::integer(2));
  obj.set("a", Json::integer(3));
  EXPECT_EQ(obj.get_integer("a"), 3);
  EXPECT_EQ(obj.size(), 2u);
  obj.erase("a");
  EXPECT_FALSE(obj.has("a"));
  EXPECT_EQ(obj.dump(), R"({"b":2})");
  obj.erase("absent");  // no-op
  EXPECT_EQ(obj.size(), 1u);
}

TEST(Json, TypedGettersReturnNulloptOnWrongType) {
  auto parsed = Json::parse(R"({"s":"x","i":5,"b":true,"n":null,"o":{},"a":[],"f":1.5})");
  ASSERT_TRUE(parsed.has_value());
  const Json& doc = *parsed;
  EXPECT_EQ(doc.get_string("s"), "x");
  for (const char* key : {"i", "b", "n", "o", "a", "f", "missing"}) {
    EXPECT_FALSE(doc.get_string(key).has_value()) << key;
  }
  EXPECT_EQ(doc.get_integer("i"), 5);
  for (const char* key : {"s", "b", "n", "o", "a", "f", "missing"}) {
    EXPECT_FALSE(doc.get_integer(key).has_value()) << key;
  }
  EXPECT_FALSE(doc.get("s").as_integer().has_value());
  EXPECT_FALSE(doc.get("i").as_string().has_value());
}

TEST(Json, AccessOnNonObjectsIsSafe) {
  Json empty;
  EXPECT_TRUE(empty.is_null());
  EXPECT_FALSE(empty.is_object());
  EXPECT_FALSE(empty.has("a"));
  EXPECT_TRUE(empty.get("a").is_null());
  EXPECT_FALSE(empty.get_string("a").has_value());
  EXPECT_EQ(empty.size(), 0u);
  EXPECT_TRUE(empty.keys().empty());

  Json str = Json::string("x");
  EXPECT_TRUE(str.get("a").is_null());
  EXPECT_FALSE(str.get_string("a").has_value());
  EXPECT_TRUE(str.at(0).is_null());
}

TEST(Json, CopiesShareTheValue) {
  Json a = Json::object();
  Json b = a;  // shares the reference
  b.set("k", Json::string("v"));
  EXPECT_EQ(a.get_string("k"), "v");
  EXPECT_EQ(a.dump(), b.dump());
}

TEST(Json, ChildOutlivesParent) {
  Json child;
  {
    auto parsed = Json::parse(R"({"inner":{"x":"y"}})");
    ASSERT_TRUE(parsed.has_value());
    child = parsed->get("inner");
  }
  EXPECT_EQ(child.get_string("x"), "y");
}

TEST(Json, ChildHandleSharesWithParent) {
  auto parsed = Json::parse(R"({"inner":{}})");
  ASSERT_TRUE(parsed.has_value());
  Json inner = parsed->get("inner");
  inner.set("added", Json::integer(7));
  EXPECT_EQ(parsed->dump(), R"({"inner":{"added":7}})");
}

TEST(Json, DeepCopyIsIndependent) {
  auto parsed = Json::parse(R"({"a":{"b":1}})");
  ASSERT_TRUE(parsed.has_value());
  Json original = *parsed;
  Json copy = original.deep_copy();
  copy.get("a").set("b", Json::integer(2));
  copy.set("c", Json::integer(3));
  EXPECT_EQ(original.dump(), R"({"a":{"b":1}})");
  EXPECT_EQ(copy.dump(), R"({"a":{"b":2},"c":3})");
}

TEST(Json, MoveKeepsTheValue) {
  Json a = Json::string("x");
  Json b = std::move(a);
  EXPECT_EQ(b.as_string(), "x");
  Json c;
  c = std::move(b);
  EXPECT_EQ(c.as_string(), "x");
}

TEST(Json, SelfAssignmentIsSafe) {
  Json a = Json::string("x");
  Json& alias = a;
  a = alias;
  EXPECT_EQ(a.as_string(), "x");
}

TEST(Json, UnicodePassesThroughUnescaped) {
  const std::string text = "{\"name\":\"J\xC3\xBCrgen \xE2\x82\xAC \xF0\x9F\x98\x80\"}";
  auto parsed = Json::parse(text);
  ASSERT_TRUE(parsed.has_value()) << parsed.error().message;
  EXPECT_EQ(parsed->get_string("name"), "J\xC3\xBCrgen \xE2\x82\xAC \xF0\x9F\x98\x80");
  EXPECT_EQ(parsed->dump(), text);

  Json built = Json::object();
  built.set("n", Json::string("\xC3\xA9"));
  EXPECT_EQ(built.dump(), "{\"n\":\"\xC3\xA9\"}");
}

TEST(Json, EscapedUnicodeIsDecoded) {
  auto parsed = Json::parse(R"({"e":"\u00e9"})");
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->get_string("e"), "\xC3\xA9");
}

TEST(Json, InvalidUtf8IsRejected) {
  auto parsed = Json::parse("{\"a\":\"\xC3\x28\"}");
  EXPECT_FALSE(parsed.has_value());
}

TEST(Json, StringsWithSpecialCharactersAreEscapedOnDump) {
  Json obj = Json::object();
  obj.set("q", Json::string("a\"b\\c\nd"));
  auto round = Json::parse(obj.dump());
  ASSERT_TRUE(round.has_value()) << obj.dump();
  EXPECT_EQ(round->get_string("q"), "a\"b\\c\nd");
}

TEST(Json, StringFromViewUsesOnlyTheViewedBytes) {
  std::string_view whole = "abcdef";
  Json s = Json::string(whole.substr(0, 3));
  EXPECT_EQ(s.as_string(), "abc");
  Json obj = Json::object();
  obj.set(whole.substr(1, 2), Json::integer(1));
  EXPECT_TRUE(obj.has("bc"));
  EXPECT_EQ(obj.get_integer(whole.substr(1, 2)), 1);
  EXPECT_EQ(obj.dump(), R"({"bc":1})");
}

TEST(Json, EmbeddedNulInStringRoundTrips) {
  Json s = Json::string(std::string_view("a\0b", 3));
  EXPECT_EQ(s.as_string(), std::string_view("a\0b", 3));
}

TEST(Json, LargeIntegers) {
  auto parsed = Json::parse(R"({"big":9007199254740993,"neg":-9223372036854775808})");
  ASSERT_TRUE(parsed.has_value()) << parsed.error().message;
  EXPECT_EQ(parsed->get_integer("big"), 9007199254740993LL);
  EXPECT_EQ(parsed->get_integer("neg"), INT64_MIN);
}

}  // namespace
}  // namespace authd
