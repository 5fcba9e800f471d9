// Building a message as it goes over SMTP: RFC 5322 headers, RFC 2047
// encoded-words for non-ASCII text, an RFC 2046 multipart/alternative body.
#include <ctime>
#include <string>

#include "authd/crypto.hpp"
#include "authd/mail.hpp"

namespace authd::mail {
namespace {

constexpr std::string_view kCrlf = "\r\n";

bool printable_ascii(std::string_view text) noexcept {
  for (unsigned char c : text) {
    if (c < 0x20 || c > 0x7e) return false;
  }
  return true;
}

// Base64 lines of at most 76 characters (RFC 2045 §6.8).
std::string base64_lines(std::string_view data) {
  const std::string encoded = crypto::base64_encode(data);
  std::string out;
  for (std::size_t i = 0; i < encoded.size(); i += 76) {
    out.append(encoded, i, 76);
    out += kCrlf;
  }
  return out;
}

// The length of the UTF-8 sequence starting with `lead` (1 for a stray byte).
std::size_t utf8_length(unsigned char lead) noexcept {
  if (lead >= 0xf0) return 4;
  if (lead >= 0xe0) return 3;
  if (lead >= 0xc0) return 2;
  return 1;
}

std::string domain_of(std::string_view address) {
  const auto at = address.rfind('@');
  return at == std::string_view::npos ? std::string("localhost") : std::string(address.substr(at + 1));
}

}  // namespace

bool valid_address(std::string_view address) noexcept {
  if (address.empty() || address.size() > 254) return false;
  const auto at = address.rfind('@');
  if (at == std::string_view::npos || at == 0 || at + 1 == address.size() || at > 64) return false;
  for (unsigned char c : address) {
    if (c <= 0x20 || c >= 0x7f) return false;
    if (c == '<' || c == '>' || c == '"' || c == ',' || c == ';' || c == '(' || c == ')' || c == '[' || c == ']' ||
        c == '\\' || c == ':') {
      return false;
    }
  }
  const auto domain = address.substr(at + 1);
  if (address.find('@') != at || domain.front() == '.' || domain.back() == '.' ||
      domain.find("..") != std::string_view::npos) {
    return false;
  }
  const auto local = address.substr(0, at);
  return local.front() != '.' && local.back() != '.' && local.find("..") == std::string_view::npos;
}

std::optional<Mailbox> parse_mailbox(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  Mailbox box;
  if (!text.empty() && text.back() == '>') {
    const auto open = text.rfind('<');
    if (open == std::string_view::npos) return std::nullopt;
    box.address = std::string(text.substr(open + 1, text.size() - open - 2));
    auto name = text.substr(0, open);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    if (name.size() >= 2 && name.front() == '"' && name.back() == '"') name = name.substr(1, name.size() - 2);
    for (unsigned char c : name) {
      if (c < 0x20 || c == 0x7f || c == '"' || c == '\\') return std::nullopt;
    }
    box.name = std::string(name);
  } else {
    box.address = std::string(text);
  }
  if (!valid_address(box.address)) return std::nullopt;
  return box;
}

std::string format_mailbox(const Mailbox& mailbox) {
  if (mailbox.name.empty()) return mailbox.address;
  const std::string name =
      printable_ascii(mailbox.name) ? "\"" + mailbox.name + "\"" : encode_header_text(mailbox.name);
  return name + " <" + mailbox.address + ">";
}

std::string encode_header_text(std::string_view text) {
  if (printable_ascii(text)) return std::string(text);
  // 75 characters per word: "=?UTF-8?B?" + "?=" leave 63 for base64, that
  // is 45 bytes of text (a multiple of 3, so no padding mid-text).
  constexpr std::size_t kChunk = 45;
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    std::size_t end = i;
    while (end < text.size()) {
      const std::size_t next = end + utf8_length(static_cast<unsigned char>(text[end]));
      if (next - i > kChunk) break;
      end = std::min(next, text.size());
    }
    if (!out.empty()) out += "\r\n ";
    out += "=?UTF-8?B?" + crypto::base64_encode(text.substr(i, end - i)) + "?=";
    i = end;
  }
  return out;
}

std::string rfc5322_date(std::int64_t unix_seconds) {
  const std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  static constexpr const char* kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static constexpr const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                            "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%s, %02d %s %04d %02d:%02d:%02d +0000", kDays[tm.tm_wday], tm.tm_mday,
                kMonths[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
  return buffer;
}

std::string build(const Message& message, const Mailbox& from, std::int64_t now) {
  std::string out;
  auto header = [&out](std::string_view name, std::string_view value) {
    out.append(name).append(": ").append(value).append(kCrlf);
  };
  header("Date", rfc5322_date(now));
  header("From", format_mailbox(from));
  header("To", message.to);
  header("Subject", encode_header_text(message.subject));
  header("Message-ID", "<" + crypto::random_hex(16) + "@" + domain_of(from.address) + ">");
  header("MIME-Version", "1.0");
  header("Auto-Submitted", "auto-generated");  // RFC 3834: no auto-replies, please
  auto part = [](std::string_view type, std::string_view body) {
    return "Content-Type: " + std::string(type) +
           "; charset=UTF-8\r\nContent-Transfer-Encoding: base64\r\n\r\n" + base64_lines(body);
  };
  if (message.html.empty()) {
    out += part("text/plain", message.text);  // its headers end the message's
    return out;
  }
  const std::string boundary = "=_authd_" + crypto::random_hex(12);
  header("Content-Type", "multipart/alternative; boundary=\"" + boundary + "\"");
  out += kCrlf;
  out += "--" + boundary + "\r\n" + part("text/plain", message.text);
  out += "--" + boundary + "\r\n" + part("text/html", message.html);
  out += "--" + boundary + "--\r\n";
  return out;
}

}  // namespace authd::mail
