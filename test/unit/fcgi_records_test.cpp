// FastCGI record encoding (src/fcgi/records.*): headers, padding, streams
// cut into records, END_REQUEST / UNKNOWN_TYPE layout, name-value pairs.
#include "fcgi/records.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace authd::fcgi {
namespace {

std::uint8_t at(const std::string& bytes, std::size_t i) { return static_cast<std::uint8_t>(bytes[i]); }

TEST(FcgiRecords, RecordHeaderRoundTripsAndPadsToEight) {
  std::string out;
  append_record(out, RecordType::stdout_, 0x1234, "hello");
  ASSERT_EQ(out.size(), 16u);  // 8 header + 5 content + 3 padding
  const Header header = decode_header(out);
  EXPECT_EQ(header.version, kVersion);
  EXPECT_EQ(header.type, RecordType::stdout_);
  EXPECT_EQ(header.request_id, 0x1234);
  EXPECT_EQ(header.content_length, 5);
  EXPECT_EQ(header.padding_length, 3);
  EXPECT_EQ(out.substr(8, 5), "hello");
  EXPECT_EQ(out.substr(13), std::string(3, '\0'));
}

TEST(FcgiRecords, EmptyRecordIsJustAHeader) {
  std::string out;
  append_record(out, RecordType::stdout_, 1, "");
  EXPECT_EQ(out.size(), kHeaderLength);
  EXPECT_EQ(decode_header(out).content_length, 0);
}

TEST(FcgiRecords, StreamIsCutIntoRecordsAndEnded) {
  const std::string content(200000, 'x');
  std::string out;
  append_stream(out, RecordType::stdout_, 7, content);
  std::string joined;
  std::size_t pos = 0;
  int records = 0;
  bool ended = false;
  while (pos < out.size()) {
    ASSERT_FALSE(ended) << "bytes after the empty record";
    const Header header = decode_header(std::string_view(out).substr(pos));
    EXPECT_EQ(header.type, RecordType::stdout_);
    EXPECT_EQ(header.request_id, 7);
    EXPECT_LE(header.content_length, kMaxContentLength);
    joined.append(out, pos + kHeaderLength, header.content_length);
    if (header.content_length == 0) ended = true;
    pos += kHeaderLength + header.content_length + header.padding_length;
    ++records;
  }
  EXPECT_TRUE(ended);
  EXPECT_EQ(pos, out.size());
  EXPECT_EQ(joined, content);
  EXPECT_EQ(records, 5);  // 3 full records of 65528, one of 3416, the empty one
}

TEST(FcgiRecords, ResponseIsStdoutThenEndRequest) {
  std::string out;
  append_response(out, 3, "Status: 200 OK\r\n\r\n");
  const std::size_t end_at = out.size() - 16;
  const Header end = decode_header(std::string_view(out).substr(end_at));
  EXPECT_EQ(end.type, RecordType::end_request);
  EXPECT_EQ(end.request_id, 3);
  EXPECT_EQ(end.content_length, 8);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(at(out, end_at + 8 + i), 0) << "appStatus byte " << i;
  EXPECT_EQ(at(out, end_at + 12), static_cast<std::uint8_t>(ProtocolStatus::request_complete));
  const Header empty_stdout = decode_header(std::string_view(out).substr(end_at - 8));
  EXPECT_EQ(empty_stdout.type, RecordType::stdout_);
  EXPECT_EQ(empty_stdout.content_length, 0);
}

// append_response is the answer's stream and FCGI_END_REQUEST appended one
// after the other, whatever the size (padding 0 to 7, one full record, more)
// and what `out` already holds (a way of writing it in one go must keep it so).
TEST(FcgiRecords, ResponseIsTheSameBytesAsItsStreamAndEndRequest) {
  const std::size_t full = kMaxContentLength - kMaxContentLength % 8;
  for (const std::size_t size : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{8}, std::size_t{9},
                                 std::size_t{100}, full - 1, full, full + 1, std::size_t{200000}}) {
    std::string content(size, 'c');
    for (std::size_t i = 0; i < size; ++i) content[i] = static_cast<char>('a' + i % 26);
    std::string expected = "held";
    append_stream(expected, RecordType::stdout_, 0x0102, content);
    append_end_request(expected, 0x0102, ProtocolStatus::request_complete);
    std::string out = "held";
    append_response(out, 0x0102, content);
    EXPECT_EQ(out, expected) << size << " bytes";
  }
}

TEST(FcgiRecords, EndRequestCarriesTheProtocolStatus) {
  std::string out;
  append_end_request(out, 9, ProtocolStatus::cant_mpx_conn);
  ASSERT_EQ(out.size(), 16u);
  EXPECT_EQ(at(out, 12), static_cast<std::uint8_t>(ProtocolStatus::cant_mpx_conn));
}

TEST(FcgiRecords, UnknownTypeNamesTheType) {
  std::string out;
  append_unknown_type(out, 42);
  ASSERT_EQ(out.size(), 16u);
  const Header header = decode_header(out);
  EXPECT_EQ(header.type, RecordType::unknown_type);
  EXPECT_EQ(header.request_id, 0);
  EXPECT_EQ(at(out, 8), 42);
}

TEST(FcgiRecords, PairsRoundTripWithShortAndLongLengths) {
  const std::string long_name(200, 'N');
  const std::string long_value(70000, 'v');
  std::string bytes;
  append_pair(bytes, "A", "1");
  append_pair(bytes, long_name, long_value);
  append_pair(bytes, "EMPTY", "");
  EXPECT_EQ(at(bytes, 0), 1);  // 1-byte lengths below 128
  const auto pairs = decode_pairs(bytes);
  ASSERT_TRUE(pairs);
  ASSERT_EQ(pairs->size(), 3u);
  EXPECT_EQ((*pairs)[0], (std::pair<std::string, std::string>{"A", "1"}));
  EXPECT_EQ((*pairs)[1].first, long_name);
  EXPECT_EQ((*pairs)[1].second, long_value);
  EXPECT_EQ((*pairs)[2], (std::pair<std::string, std::string>{"EMPTY", ""}));
}

TEST(FcgiRecords, TruncatedPairsAreRefused) {
  std::string bytes;
  append_pair(bytes, "NAME", "value");
  for (std::size_t cut = 1; cut < bytes.size(); ++cut) {
    EXPECT_FALSE(decode_pairs(bytes.substr(0, cut))) << "cut at " << cut;
  }
  // A 4-byte length that claims more than there is.
  EXPECT_FALSE(decode_pairs(std::string("\x80\x00\x10\x00\x01", 5) + "ab"));
  EXPECT_TRUE(decode_pairs(""));
}

TEST(FcgiRecords, ARecordOverTheLengthFieldIsRefusedNotWrapped) {
  std::string out = "kept";
  EXPECT_THROW(append_record(out, RecordType::get_values_result, 0, std::string(kMaxContentLength + 1, 'x')), std::length_error);
  EXPECT_EQ(out, "kept");
  append_record(out, RecordType::stdout_, 1, std::string(kMaxContentLength, 'x'));
  EXPECT_EQ(decode_header(std::string_view(out).substr(4)).content_length, kMaxContentLength);
}

TEST(FcgiRecords, PairDecodingStopsPastTheCount) {
  std::string bytes;
  for (int i = 0; i < 50; ++i) append_pair(bytes, "", "");
  EXPECT_EQ(decode_pairs(bytes, 10)->size(), 11u);
  EXPECT_EQ(decode_pairs(bytes)->size(), 50u);
}

}  // namespace
}  // namespace authd::fcgi
