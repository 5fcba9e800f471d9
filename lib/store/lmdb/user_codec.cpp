#include "user_codec.hpp"

#include <cstdint>
#include <cstring>

namespace authd::store_detail {
namespace {

constexpr char kMagic = 'U';
constexpr char kFormat = 3;     // 3 adds email_verified
constexpr char kFormatV2 = 2;  // still read: token_generation, last_revocation, email unverified
constexpr char kFormatV1 = 1;  // still read: no lifecycle fields (both 0)
constexpr std::uint32_t kMaxLinks = 1024;

void put_u32(std::string& out, std::uint32_t value) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xFF));
}
void put_i64(std::string& out, std::int64_t value) {
  const auto bits = static_cast<std::uint64_t>(value);
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((bits >> (8 * i)) & 0xFF));
}
void put_text(std::string& out, std::string_view text) {
  put_u32(out, static_cast<std::uint32_t>(text.size()));
  out.append(text);
}

class Reader {
 public:
  explicit Reader(std::string_view bytes) : rest_(bytes) {}
  bool ok() const noexcept { return ok_; }
  bool done() const noexcept { return ok_ && rest_.empty(); }

  std::uint64_t number(int width) {
    if (!take(static_cast<std::size_t>(width))) return 0;
    std::uint64_t value = 0;
    for (int i = 0; i < width; ++i) value |= std::uint64_t{static_cast<unsigned char>(taken_[static_cast<std::size_t>(i)])} << (8 * i);
    return value;
  }
  std::string text() {
    const auto size = number(4);
    return take(static_cast<std::size_t>(size)) ? std::string(taken_) : std::string();
  }

 private:
  bool take(std::size_t size) {
    if (!ok_ || rest_.size() < size) return ok_ = false;
    taken_ = rest_.substr(0, size);
    rest_.remove_prefix(size);
    return true;
  }
  std::string_view rest_;
  std::string_view taken_;
  bool ok_ = true;
};

}  // namespace

std::string encode_user(const User& user) {
  std::string out;
  out.reserve(64 + user.id.size() + user.username.size() + user.password_hash.size() + user.fullname.size() +
              user.email.size());
  out.push_back(kMagic);
  out.push_back(kFormat);
  put_text(out, user.id);
  put_text(out, user.username);
  put_text(out, user.password_hash);
  put_text(out, user.fullname);
  put_text(out, user.email);
  out.push_back(static_cast<char>(user.role));
  put_i64(out, user.version);
  put_i64(out, user.created_at);
  put_i64(out, user.updated_at);
  put_u32(out, static_cast<std::uint32_t>(user.links.size()));
  for (const auto& link : user.links) put_text(out, link);
  put_i64(out, user.token_generation);
  put_i64(out, user.last_revocation);
  out.push_back(static_cast<char>(user.email_verified ? 1 : 0));
  return out;
}

std::optional<User> decode_user(std::string_view bytes) {
  if (bytes.size() < 2 || bytes[0] != kMagic || (bytes[1] != kFormat && bytes[1] != kFormatV2 && bytes[1] != kFormatV1)) {
    return std::nullopt;
  }
  const bool v2 = bytes[1] != kFormatV1;
  const bool v3 = bytes[1] == kFormat;
  Reader in(bytes.substr(2));
  User user;
  user.id = in.text();
  user.username = in.text();
  user.password_hash = in.text();
  user.fullname = in.text();
  user.email = in.text();
  const auto role = in.number(1);
  if (role > static_cast<std::uint64_t>(Role::admin)) return std::nullopt;
  user.role = static_cast<Role>(role);
  user.version = static_cast<std::int64_t>(in.number(8));
  user.created_at = static_cast<std::int64_t>(in.number(8));
  user.updated_at = static_cast<std::int64_t>(in.number(8));
  const auto links = in.number(4);
  if (links > kMaxLinks) return std::nullopt;
  for (std::uint64_t i = 0; i < links && in.ok(); ++i) user.links.push_back(in.text());
  if (v2) {
    user.token_generation = static_cast<std::int64_t>(in.number(8));
    user.last_revocation = static_cast<std::int64_t>(in.number(8));
  }
  if (v3) {
    const auto verified = in.number(1);
    if (verified > 1) return std::nullopt;
    user.email_verified = verified == 1;
  }
  if (!in.done() || user.id.empty() || user.username.empty()) return std::nullopt;
  return user;
}

}  // namespace authd::store_detail
