// The incremental FastCGI request reader (src/fcgi/request_parser.*): whole
// requests out of bytes that arrive in any pieces, size caps while reading,
// refusals (multiplexing, unknown role), aborts, management records, and
// what a request looks like to the handlers (src/fcgi/http_request.*).
#include "fcgi/request_parser.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <random>
#include <string>
#include <vector>

#include "fcgi/http_request.hpp"
#include "fcgi/records.hpp"

namespace authd::fcgi {
namespace {

using Kind = Step::Kind;

const Limits kDefaults;  // a parser keeps a reference to its limits

std::string begin(std::uint16_t id, Role role = Role::responder, bool keep = false) {
  const auto r = static_cast<std::uint16_t>(role);
  const char body[8] = {static_cast<char>(r >> 8), static_cast<char>(r & 0xff), static_cast<char>(keep ? kKeepConn : 0), 0, 0, 0, 0, 0};
  std::string out;
  append_record(out, RecordType::begin_request, id, std::string_view(body, 8));
  return out;
}

std::string params(std::uint16_t id, const Params& pairs) {
  std::string encoded;
  for (const auto& [name, value] : pairs) append_pair(encoded, name, value);
  std::string out;
  append_stream(out, RecordType::params, id, encoded);
  return out;
}

std::string stdin_stream(std::uint16_t id, std::string_view body) {
  std::string out;
  append_stream(out, RecordType::stdin_, id, body);
  return out;
}

std::string record_of(RecordType type, std::uint16_t id, std::string_view content) {
  std::string out;
  append_record(out, type, id, content);
  return out;
}

std::string request(std::uint16_t id, std::string_view body, bool keep = false, Params extra = {}) {
  Params pairs = {{"REQUEST_METHOD", "POST"}, {"SCRIPT_NAME", "/signup"}, {"CONTENT_LENGTH", std::to_string(body.size())}};
  for (auto& pair : extra) pairs.push_back(pair);
  return begin(id, Role::responder, keep) + params(id, pairs) + stdin_stream(id, body);
}

struct Fed {
  std::vector<Step> steps;
  std::vector<Request> requests;
  std::string replies;
};

// Feeds `bytes` in pieces of `piece` bytes, collecting every step but need_more.
Fed feed(RequestParser& parser, std::string_view bytes, std::size_t piece = SIZE_MAX) {
  Fed fed;
  auto drain = [&] {
    for (;;) {
      Step step = parser.next(fed.replies);
      if (step.kind == Kind::need_more) return;
      if (step.kind == Kind::request) fed.requests.push_back(parser.take_request());
      const bool stop = step.kind == Kind::broken;
      fed.steps.push_back(std::move(step));
      if (stop) return;
    }
  };
  while (!bytes.empty()) {
    const std::size_t n = std::min(piece, bytes.size());
    parser.append(bytes.substr(0, n));
    bytes.remove_prefix(n);
    drain();
  }
  return fed;
}

// The default limits but a body cap of `bytes`.
Limits with_body_cap(std::size_t bytes) {
  Limits limits;
  limits.max_body_bytes = bytes;
  return limits;
}

// The request was refused with `code`, then ended (FCGI_END_REQUEST) with the
// connection closed.
void expect_refused_then_closed(const Fed& fed, Errc code) {
  ASSERT_EQ(fed.steps.size(), 2u);
  EXPECT_EQ(fed.steps[0].kind, Kind::reject);
  EXPECT_EQ(fed.steps[0].error->code, code);
  EXPECT_EQ(fed.steps[1].kind, Kind::ended);
  EXPECT_FALSE(fed.steps[1].keep_conn);
}

std::vector<Header> headers_of(std::string_view bytes) {
  std::vector<Header> out;
  while (bytes.size() >= kHeaderLength) {
    out.push_back(decode_header(bytes));
    bytes.remove_prefix(kHeaderLength + out.back().content_length + out.back().padding_length);
  }
  return out;
}

// Request `id` ended (one FCGI_END_REQUEST for it) and the connection stays open.
void expect_ended_on_a_kept_connection(const Fed& fed, std::uint16_t id) {
  ASSERT_EQ(fed.steps.size(), 1u);
  EXPECT_EQ(fed.steps[0].kind, Kind::ended);
  EXPECT_TRUE(fed.steps[0].keep_conn);
  const auto ends = headers_of(fed.replies);
  ASSERT_EQ(ends.size(), 1u);
  EXPECT_EQ(ends[0].type, RecordType::end_request);
  EXPECT_EQ(ends[0].request_id, id);
}

std::uint8_t protocol_status_of_end(std::string_view replies) {
  return static_cast<std::uint8_t>(replies[kHeaderLength + 4]);
}

TEST(FcgiRequestParser, WholeRequestAtOnce) {
  RequestParser parser(kDefaults);
  const auto fed = feed(parser, request(1, R"({"username":"a"})"));
  ASSERT_EQ(fed.steps.size(), 1u);
  EXPECT_EQ(fed.steps[0].kind, Kind::request);
  ASSERT_EQ(fed.requests.size(), 1u);
  const Request& r = fed.requests[0];
  EXPECT_EQ(r.id, 1);
  EXPECT_EQ(r.role, Role::responder);
  EXPECT_FALSE(r.keep_conn);
  EXPECT_EQ(r.body, R"({"username":"a"})");
  ASSERT_FALSE(r.params->empty());
  EXPECT_EQ((*r.params)[0], (ParamView{"FCGI_ROLE", "RESPONDER"}));
  EXPECT_TRUE(fed.replies.empty());
  EXPECT_EQ(parser.phase(), RequestParser::Phase::idle);
}

TEST(FcgiRequestParser, OneByteAtATimeCompletesOnlyAtTheLastByte) {
  const std::string bytes = request(5, "body bytes", true);
  RequestParser parser(kDefaults);
  std::string replies;
  for (std::size_t i = 0; i + 1 < bytes.size(); ++i) {
    parser.append(bytes.substr(i, 1));
    ASSERT_EQ(parser.next(replies).kind, Kind::need_more) << "after byte " << i;
  }
  EXPECT_EQ(parser.phase(), RequestParser::Phase::body);
  parser.append(bytes.substr(bytes.size() - 1));
  ASSERT_EQ(parser.next(replies).kind, Kind::request);
  const Request r = parser.take_request();
  EXPECT_TRUE(r.keep_conn);
  EXPECT_EQ(r.body, "body bytes");
}

TEST(FcgiRequestParser, PhasesFollowTheRecords) {
  RequestParser parser(kDefaults);
  std::string replies;
  EXPECT_EQ(parser.phase(), RequestParser::Phase::idle);
  parser.append(begin(1));
  EXPECT_EQ(parser.next(replies).kind, Kind::need_more);
  EXPECT_EQ(parser.phase(), RequestParser::Phase::head);
  parser.append(params(1, {{"CONTENT_LENGTH", "3"}}));
  EXPECT_EQ(parser.next(replies).kind, Kind::need_more);
  EXPECT_EQ(parser.phase(), RequestParser::Phase::body);
}

TEST(FcgiRequestParser, KeptConnectionCarriesRequestsOneAfterAnother) {
  RequestParser parser(kDefaults);
  const auto fed = feed(parser, request(1, "first", true) + request(1, "second", true) + request(2, "", false));
  ASSERT_EQ(fed.requests.size(), 3u);
  EXPECT_EQ(fed.requests[0].body, "first");
  EXPECT_EQ(fed.requests[1].body, "second");
  EXPECT_EQ(fed.requests[2].id, 2);
  EXPECT_FALSE(fed.requests[2].keep_conn);
}

TEST(FcgiRequestParser, AnySplitGivesTheSameRequests) {
  const std::string bytes = request(1, std::string(70000, 'b'), true) + begin(0x0101, Role::authorizer, true) +
                            params(0x0101, {{"REQUEST_URI", "/app/x"}}) + request(3, "tail", true);
  Limits limits;
  limits.max_body_bytes = 100000;
  std::mt19937 random(42);
  for (int round = 0; round < 50; ++round) {
    RequestParser parser(limits);
    Fed fed;
    std::string_view rest = bytes;
    while (!rest.empty()) {
      const std::size_t n = std::min<std::size_t>(rest.size(), 1 + random() % 9000);
      parser.append(rest.substr(0, n));
      rest.remove_prefix(n);
      for (Step step = parser.next(fed.replies); step.kind != Kind::need_more; step = parser.next(fed.replies)) {
        ASSERT_EQ(step.kind, Kind::request);
        fed.requests.push_back(parser.take_request());
      }
    }
    ASSERT_EQ(fed.requests.size(), 3u) << "round " << round;
    EXPECT_EQ(fed.requests[0].body.size(), 70000u);
    EXPECT_EQ(fed.requests[1].role, Role::authorizer);
    EXPECT_EQ(fed.requests[2].body, "tail");
  }
}

TEST(FcgiRequestParser, AuthorizerIsCompleteAtTheEndOfItsParameters) {
  RequestParser parser(kDefaults);
  const std::string head = begin(1, Role::authorizer, true) + params(1, {{"CONTENT_LENGTH", "99"}, {"REQUEST_URI", "/app/"}});
  auto fed = feed(parser, head);
  ASSERT_EQ(fed.requests.size(), 1u);
  EXPECT_EQ((*fed.requests[0].params)[0], (ParamView{"FCGI_ROLE", "AUTHORIZER"}));
  EXPECT_TRUE(fed.requests[0].body.empty());
  // A web server that still sends an (empty) stdin: skipped; the next request works.
  fed = feed(parser, stdin_stream(1, "") + request(1, "next", true));
  ASSERT_EQ(fed.requests.size(), 1u);
  EXPECT_EQ(fed.requests[0].body, "next");
}

TEST(FcgiRequestParser, DeclaredBodyOverTheCapIsRefusedBeforeItArrives) {
  const Limits limits = with_body_cap(10);
  RequestParser parser(limits);
  std::string replies;
  parser.append(begin(1, Role::responder, true) + params(1, {{"CONTENT_LENGTH", "1000"}}));
  Step step = parser.next(replies);
  ASSERT_EQ(step.kind, Kind::reject);
  EXPECT_EQ(step.error->code, Errc::too_large);
  EXPECT_TRUE(replies.empty()) << "FCGI_END_REQUEST is held back";
  // Answered early on a kept connection: the rest of the request is read
  // and dropped before FCGI_END_REQUEST goes (class 5 of issue 23: H2O 2.2
  // aborts on an END_REQUEST while it still writes the body).
  EXPECT_EQ(parser.next(replies).kind, Kind::need_more);
  EXPECT_EQ(parser.phase(), RequestParser::Phase::drain);
  auto fed = feed(parser, record_of(RecordType::stdin_, 1, std::string(1000, 'x')));
  EXPECT_TRUE(fed.steps.empty());
  EXPECT_TRUE(fed.replies.empty());
  fed = feed(parser, record_of(RecordType::stdin_, 1, ""));
  expect_ended_on_a_kept_connection(fed, 1);
  EXPECT_EQ(parser.phase(), RequestParser::Phase::idle);
  // The connection serves the next request, with the same id as web servers do.
  fed = feed(parser, request(1, "ok", true));
  ASSERT_EQ(fed.requests.size(), 1u);
  EXPECT_EQ(fed.requests[0].body, "ok");
}

TEST(FcgiRequestParser, WithoutKeepConnTheEarlyAnswerEndsAtOnce) {
  const Limits limits = with_body_cap(10);
  RequestParser parser(limits);
  const auto fed = feed(parser, begin(1) + params(1, {{"CONTENT_LENGTH", "1000"}}));
  ASSERT_EQ(fed.steps.size(), 2u);
  EXPECT_EQ(fed.steps[0].kind, Kind::reject);
  EXPECT_EQ(fed.steps[1].kind, Kind::ended);
  EXPECT_FALSE(fed.steps[1].keep_conn);
  EXPECT_EQ(headers_of(fed.replies).size(), 1u);
  EXPECT_EQ(parser.phase(), RequestParser::Phase::idle);
}

TEST(FcgiRequestParser, DroppedInputIsBounded) {
  Limits limits;
  limits.max_body_bytes = 10;
  limits.early_answer_discard_bytes = 5000;
  RequestParser parser(limits);
  const auto fed = feed(parser, begin(1, Role::responder, true) + params(1, {{"CONTENT_LENGTH", "100000"}}) +
                                    stdin_stream(1, std::string(100000, 'x')));
  ASSERT_EQ(fed.steps.size(), 2u);
  EXPECT_EQ(fed.steps[0].kind, Kind::reject);
  EXPECT_EQ(fed.steps[1].kind, Kind::broken);
  EXPECT_TRUE(fed.replies.empty()) << "no FCGI_END_REQUEST: the connection is closed instead";
}

TEST(FcgiRequestParser, AnAbortEndsADrainedRequest) {
  const Limits limits = with_body_cap(10);
  RequestParser parser(limits);
  const auto fed = feed(parser, begin(1, Role::responder, true) + params(1, {{"CONTENT_LENGTH", "1000"}}) +
                                    record_of(RecordType::stdin_, 1, "abc") + record_of(RecordType::abort_request, 1, ""));
  ASSERT_EQ(fed.steps.size(), 2u);
  EXPECT_EQ(fed.steps[1].kind, Kind::ended);
  EXPECT_EQ(headers_of(fed.replies).size(), 1u);
}

TEST(FcgiRequestParser, AfterAnEarlyAnswerTheNextBeginStartsANewRequest) {
  // A web server that gives up the rest of a body answered early and reuses
  // the connection: no empty FCGI_STDIN ever ends the old request, and the
  // held FCGI_END_REQUEST is dropped (with the same id it would end the new one).
  const Limits limits = with_body_cap(10);
  RequestParser parser(limits);
  const std::string bytes = begin(1, Role::responder, true) + params(1, {{"CONTENT_LENGTH", "1000"}}) +
                            record_of(RecordType::stdin_, 1, "part of it") + request(1, "next", true);
  const auto fed = feed(parser, bytes);
  ASSERT_EQ(fed.steps.size(), 2u);
  EXPECT_EQ(fed.steps[0].kind, Kind::reject);
  EXPECT_EQ(fed.steps[1].kind, Kind::request);
  ASSERT_EQ(fed.requests.size(), 1u);
  EXPECT_EQ(fed.requests[0].body, "next");
  EXPECT_TRUE(fed.replies.empty()) << "no multiplexing refusal, no END_REQUEST";
}

TEST(FcgiRequestParser, TooManyParametersAreRefusedAndTheConnectionClosed) {
  // Thousands of empty pairs fit in the parameter byte cap but would cost
  // two strings each.
  Limits limits;
  limits.max_request_params = 100;
  RequestParser parser(limits);
  Params many;
  for (int i = 0; i < 101; ++i) many.emplace_back("", "");
  auto fed = feed(parser, begin(1, Role::responder, true) + params(1, many));
  ASSERT_EQ(fed.steps.size(), 2u);
  EXPECT_EQ(fed.steps[0].kind, Kind::reject);
  EXPECT_EQ(fed.steps[0].error->code, Errc::too_large);
  EXPECT_FALSE(fed.steps[1].keep_conn);
  RequestParser ok(limits);
  many.pop_back();
  fed = feed(ok, begin(1) + params(1, many) + stdin_stream(1, ""));
  EXPECT_EQ(fed.requests.size(), 1u);
}

TEST(FcgiRequestParser, AnAbandonedRequestIsOver) {
  RequestParser parser(kDefaults);
  auto fed = feed(parser, begin(1, Role::responder, true) + params(1, {{"CONTENT_LENGTH", "100"}}) +
                              record_of(RecordType::stdin_, 1, "slow"));
  EXPECT_EQ(parser.phase(), RequestParser::Phase::body);
  parser.abandon_request();
  EXPECT_EQ(parser.phase(), RequestParser::Phase::idle);
  fed = feed(parser, record_of(RecordType::stdin_, 1, "rest") + request(2, "new", true));
  ASSERT_EQ(fed.requests.size(), 1u);
  EXPECT_EQ(fed.requests[0].id, 2);
}

TEST(FcgiRequestParser, UndeclaredBodyOverTheCapIsRefusedAsItArrives) {
  const Limits limits = with_body_cap(100);
  RequestParser parser(limits);
  const auto fed = feed(parser, begin(1) + params(1, {{"REQUEST_METHOD", "POST"}}) + stdin_stream(1, std::string(500, 'x')), 64);
  expect_refused_then_closed(fed, Errc::too_large);
  EXPECT_TRUE(fed.requests.empty());
}

TEST(FcgiRequestParser, BodyShorterOrLongerThanContentLengthIsRefused) {
  {
    RequestParser parser(kDefaults);
    const auto fed = feed(parser, begin(1) + params(1, {{"CONTENT_LENGTH", "10"}}) + stdin_stream(1, "short"));
    ASSERT_EQ(fed.steps.size(), 2u);
    EXPECT_EQ(fed.steps[0].kind, Kind::reject);
    EXPECT_EQ(fed.steps[0].error->code, Errc::invalid_input);
    EXPECT_EQ(fed.steps[1].kind, Kind::ended);
  }
  {
    RequestParser parser(kDefaults);
    const auto fed = feed(parser, begin(1) + params(1, {{"CONTENT_LENGTH", "2"}}) + stdin_stream(1, "longer"));
    ASSERT_EQ(fed.steps.size(), 2u);
    EXPECT_EQ(fed.steps[0].kind, Kind::reject);
    EXPECT_EQ(fed.steps[1].kind, Kind::ended);
  }
}

TEST(FcgiRequestParser, InvalidContentLengthIsRefused) {
  for (const char* text : {"-2", "--1", "-1 ", "12x", "0x10", " 5", "99999999999999999999999"}) {
    RequestParser parser(kDefaults);
    const auto fed = feed(parser, begin(1) + params(1, {{"CONTENT_LENGTH", text}}) + stdin_stream(1, ""));
    ASSERT_FALSE(fed.steps.empty()) << text;
    EXPECT_EQ(fed.steps[0].kind, Kind::reject) << text;
    EXPECT_EQ(fed.steps[0].error->code, Errc::invalid_input) << text;
  }
}

// Caddy 2.6 passes CONTENT_LENGTH "-1" for a chunked body: the body is the
// whole stdin stream, and the body cap still applies.
TEST(FcgiRequestParser, UnknownContentLengthReadsTheStreamToItsEnd) {
  {
    RequestParser parser(kDefaults);
    const auto fed = feed(parser, begin(1, Role::responder, true) + params(1, {{"CONTENT_LENGTH", "-1"}}) +
                                      stdin_stream(1, "{\"a\":1}"));
    ASSERT_EQ(fed.requests.size(), 1u);
    EXPECT_EQ(fed.requests[0].body, "{\"a\":1}");
  }
  {
    const Limits limits = with_body_cap(10);
    RequestParser parser(limits);
    const auto fed = feed(parser, begin(1) + params(1, {{"CONTENT_LENGTH", "-1"}}) + stdin_stream(1, std::string(11, 'x')));
    ASSERT_FALSE(fed.steps.empty());
    EXPECT_EQ(fed.steps[0].kind, Kind::reject);
    EXPECT_EQ(fed.steps[0].error->code, Errc::too_large);
    EXPECT_TRUE(fed.requests.empty());
  }
}

TEST(FcgiRequestParser, ParametersOverTheCapAreRefusedAndTheConnectionClosed) {
  Limits limits;
  limits.max_params_bytes = 1024;
  RequestParser parser(limits);
  const auto fed = feed(parser, begin(1, Role::responder, true) + params(1, {{"HTTP_COOKIE", std::string(5000, 'c')}}));
  expect_refused_then_closed(fed, Errc::too_large);
}

TEST(FcgiRequestParser, MalformedParametersAreRefused) {
  RequestParser parser(kDefaults);
  std::string bad;
  append_stream(bad, RecordType::params, 1, std::string("\x05\x01", 2) + "ab");  // name length 5, only 2 bytes follow
  const auto fed = feed(parser, begin(1, Role::responder, true) + bad);
  expect_refused_then_closed(fed, Errc::invalid_input);
}

TEST(FcgiRequestParser, MultiplexingIsRefusedAndTheOpenRequestGoesOn) {
  RequestParser parser(kDefaults);
  const std::string bytes = begin(1, Role::responder, true) + begin(2) + params(1, {{"CONTENT_LENGTH", "2"}}) +
                            params(2, {{"X", "y"}}) + stdin_stream(2, "zz") + stdin_stream(1, "ok");
  const auto fed = feed(parser, bytes);
  ASSERT_EQ(fed.requests.size(), 1u);
  EXPECT_EQ(fed.requests[0].id, 1);
  EXPECT_EQ(fed.requests[0].body, "ok");
  const auto replies = headers_of(fed.replies);
  ASSERT_EQ(replies.size(), 1u);
  EXPECT_EQ(replies[0].type, RecordType::end_request);
  EXPECT_EQ(replies[0].request_id, 2);
  EXPECT_EQ(protocol_status_of_end(fed.replies), static_cast<std::uint8_t>(ProtocolStatus::cant_mpx_conn));
}

TEST(FcgiRequestParser, FilterRoleIsRefusedAsUnknown) {
  RequestParser parser(kDefaults);
  const auto fed = feed(parser, begin(4, Role::filter, true) + params(4, {{"A", "b"}}) + stdin_stream(4, "x"));
  ASSERT_EQ(fed.steps.size(), 1u);
  EXPECT_EQ(fed.steps[0].kind, Kind::ended);
  EXPECT_TRUE(fed.steps[0].keep_conn);
  EXPECT_TRUE(fed.requests.empty());
  ASSERT_EQ(headers_of(fed.replies).size(), 1u);
  EXPECT_EQ(protocol_status_of_end(fed.replies), static_cast<std::uint8_t>(ProtocolStatus::unknown_role));
}

TEST(FcgiRequestParser, AbortEndsTheOpenRequest) {
  RequestParser parser(kDefaults);
  std::string abort;
  append_record(abort, RecordType::abort_request, 1, "");
  const auto fed = feed(parser, begin(1, Role::responder, true) + params(1, {{"CONTENT_LENGTH", "10"}}) + abort);
  expect_ended_on_a_kept_connection(fed, 1);
  EXPECT_EQ(protocol_status_of_end(fed.replies), static_cast<std::uint8_t>(ProtocolStatus::request_complete));
  // An abort for nothing open is ignored.
  RequestParser idle(kDefaults);
  EXPECT_TRUE(feed(idle, abort).steps.empty());
}

TEST(FcgiRequestParser, GetValuesIsAnswered) {
  Limits limits;
  limits.max_connections = 500;
  RequestParser parser(limits);
  std::string names;
  append_pair(names, "FCGI_MAX_CONNS", "");
  append_pair(names, "FCGI_MPXS_CONNS", "");
  append_pair(names, "SOMETHING_ELSE", "");
  std::string query;
  append_record(query, RecordType::get_values, 0, names);
  const auto fed = feed(parser, query);
  EXPECT_TRUE(fed.steps.empty());
  const auto replies = headers_of(fed.replies);
  ASSERT_EQ(replies.size(), 1u);
  EXPECT_EQ(replies[0].type, RecordType::get_values_result);
  EXPECT_EQ(replies[0].request_id, 0);
  const auto values = decode_pairs(std::string_view(fed.replies).substr(kHeaderLength, replies[0].content_length));
  ASSERT_TRUE(values);
  EXPECT_EQ(*values, (Params{{"FCGI_MAX_CONNS", "500"}, {"FCGI_MPXS_CONNS", "0"}}));
}

TEST(FcgiRequestParser, GetValuesAskedManyTimesIsAnsweredOnceInOneRecord) {
  // 3855 names of 17 bytes fill a record; answered one by one they made a
  // reply over 65535 bytes, whose length field wrapped and broke the framing.
  RequestParser parser(kDefaults);
  std::string names;
  while (names.size() + 17 <= kMaxContentLength) append_pair(names, "FCGI_MPXS_CONNS", "");
  std::string query;
  append_record(query, RecordType::get_values, 0, names);
  const auto fed = feed(parser, query + query);
  const auto replies = headers_of(fed.replies);
  ASSERT_EQ(replies.size(), 2u);
  for (const auto& header : replies) EXPECT_EQ(header.type, RecordType::get_values_result);
  const auto values = decode_pairs(std::string_view(fed.replies).substr(kHeaderLength, replies[0].content_length));
  ASSERT_TRUE(values);
  EXPECT_EQ(*values, (Params{{"FCGI_MPXS_CONNS", "0"}}));
}

TEST(FcgiRequestParser, UnknownManagementRecordGetsUnknownType) {
  RequestParser parser(kDefaults);
  std::string record;
  append_record(record, static_cast<RecordType>(77), 0, "abc");
  const auto fed = feed(parser, record);
  EXPECT_TRUE(fed.steps.empty());
  const auto replies = headers_of(fed.replies);
  ASSERT_EQ(replies.size(), 1u);
  EXPECT_EQ(replies[0].type, RecordType::unknown_type);
  EXPECT_EQ(static_cast<std::uint8_t>(fed.replies[kHeaderLength]), 77);
}

TEST(FcgiRequestParser, NotFastCgiIsBroken) {
  {
    RequestParser parser(kDefaults);
    const auto fed = feed(parser, "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    ASSERT_EQ(fed.steps.size(), 1u);
    EXPECT_EQ(fed.steps[0].kind, Kind::broken);
  }
  {
    RequestParser parser(kDefaults);
    const auto fed = feed(parser, begin(0));  // request id 0 is for management records
    ASSERT_EQ(fed.steps.size(), 1u);
    EXPECT_EQ(fed.steps[0].kind, Kind::broken);
  }
  {
    RequestParser parser(kDefaults);
    const auto fed = feed(parser, begin(1) + stdin_stream(1, "x"));  // stdin before the parameters ended
    ASSERT_EQ(fed.steps.size(), 1u);
    EXPECT_EQ(fed.steps[0].kind, Kind::broken);
  }
}

TEST(FcgiHttpRequest, ParametersBecomeTheRequestFields) {
  RequestParser parser(kDefaults);
  auto fed = feed(parser, request(1, "{}", false,
                                        {{"SCRIPT_NAME", "/records"},  // a second one: the first wins
                                         {"PATH_INFO", "/abc/"},
                                         {"QUERY_STRING", "a=1"},
                                         {"HTTPS", "on"},
                                         {"REMOTE_ADDR", "192.0.2.1"},
                                         {"HTTP_AUTHORIZATION", "Bearer t"},
                                         {"FCGI_ROLE", "AUTHORIZER"}}));
  ASSERT_EQ(fed.requests.size(), 1u);
  const http::Request r = to_http_request(std::move(fed.requests[0]));
  EXPECT_EQ(r.method, "POST");
  EXPECT_EQ(r.path, "/signup/abc");
  EXPECT_EQ(r.query, "a=1");
  EXPECT_TRUE(r.https);
  EXPECT_EQ(r.remote_addr, "192.0.2.1");
  EXPECT_EQ(r.body, "{}");
  EXPECT_EQ(r.authorization(), "Bearer t");
  EXPECT_EQ(r.param("FCGI_ROLE"), "RESPONDER");  // ours comes first: the web server cannot claim a role
  EXPECT_EQ(r.param("NOT_SENT"), "");
}

// A request's parameters are recycled once nothing holds them: a request
// still held (at a worker, say) keeps its own while the same connection's
// parser, or another connection's on the same thread, reads the next ones.
TEST(FcgiRequestParser, ARequestStillHeldKeepsItsParametersThroughTheNextOnes) {
  RequestParser parser(kDefaults);
  auto first = feed(parser, request(1, "a", true, {{"HTTP_X_MARK", "first"}}));
  ASSERT_EQ(first.requests.size(), 1u);
  const http::Request held = to_http_request(std::move(first.requests[0]));
  for (int i = 0; i < 20; ++i) {
    RequestParser other(kDefaults);
    auto next = feed(i % 2 ? other : parser, request(1, "b", true, {{"HTTP_X_MARK", "next" + std::to_string(i)}}));
    ASSERT_EQ(next.requests.size(), 1u);
    EXPECT_EQ(next.requests[0].params->find("HTTP_X_MARK"), "next" + std::to_string(i));
  }
  EXPECT_EQ(held.param("HTTP_X_MARK"), "first");
  EXPECT_EQ(held.param("SCRIPT_NAME"), "/signup");
  EXPECT_EQ(held.method, "POST");
}

}  // namespace
}  // namespace authd::fcgi
