#include "authd/device_authorizations.hpp"

#include <array>

#include "authd/crypto.hpp"
#include "authd/json.hpp"

namespace authd {
namespace {

constexpr std::string_view kDevices = "oidc_device";
constexpr std::string_view kUserCodes = "oidc_user_code";
constexpr std::string_view kFailures = "oidc_user_code_failures";
// RFC 8628 §6.1: consonants only (no vowels, so no words), no look-alikes.
constexpr std::string_view kAlphabet = "BCDFGHJKLMNPQRSTVWXZ";
constexpr std::size_t kUserCodeLength = 8;
// An expired entry is kept this much longer, so that a late poll hears
// expired_token rather than that the code never existed.
constexpr std::int64_t kKeepExpired = 600;

std::string digest(std::string_view text) { return crypto::to_hex(crypto::sha256(text)); }

Result<std::string> random_user_code() {
  std::string code;
  while (code.size() < kUserCodeLength) {
    std::array<unsigned char, 16> bytes{};
    if (auto ok = crypto::random_bytes(bytes); !ok) return std::unexpected(ok.error());
    for (const unsigned char byte : bytes) {
      // 240 = 12 x 20: the bytes above are dropped, so every letter is as likely.
      if (byte < 240 && code.size() < kUserCodeLength) code += kAlphabet[byte % kAlphabet.size()];
    }
  }
  return code;
}

Result<std::optional<Json>> entry(StoreTxn& txn, std::string_view ns, std::string_view key) {
  auto value = txn.get_entry(ns, key);
  if (!value) return std::unexpected(value.error());
  if (!*value) return std::optional<Json>();
  auto json = Json::parse(**value);
  if (!json || !json->is_object()) return fail(Errc::internal, "corrupt device authorization entry");
  return std::optional<Json>(std::move(*json));
}

std::string text(const Json& json, std::string_view name) { return std::string(json.get_string(name).value_or("")); }

DeviceRequest request_of(const Json& json) { return {text(json, "client_id"), text(json, "scope")}; }

// The device entry a typed user code names, undecided and unexpired, with its key.
Result<std::pair<std::string, Json>> pending_by_user_code(StoreTxn& txn, std::string_view typed, std::int64_t now) {
  const auto code = normalized_user_code(typed);
  if (code.empty()) return fail(Errc::invalid_token, "not a user code");
  auto pointer = entry(txn, kUserCodes, digest(code));
  if (!pointer) return std::unexpected(pointer.error());
  if (!*pointer) return fail(Errc::invalid_token, "unknown or used user code");
  const auto device_key = text(**pointer, "device");
  auto device = entry(txn, kDevices, device_key);
  if (!device) return std::unexpected(device.error());
  if (!*device || text(**device, "state") != "pending" || (*device)->get_integer("expires_at").value_or(0) <= now) {
    return fail(Errc::invalid_token, "unknown, expired or used user code");
  }
  return std::pair{device_key, std::move(**device)};
}

}  // namespace

std::string normalized_user_code(std::string_view typed) {
  std::string code;
  for (const char c : typed) {
    if (c == '-' || c == ' ') continue;
    const char upper = (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
    if (kAlphabet.find(upper) == std::string_view::npos || code.size() == kUserCodeLength) return {};
    code += upper;
  }
  return code.size() == kUserCodeLength ? code : std::string();
}

Result<DeviceStart> DeviceAuthorizations::start(const DeviceRequest& request, std::int64_t interval,
                                                std::int64_t now) {
  DeviceStart started;
  started.device_code = crypto::random_token(32);
  const auto device_key = digest(started.device_code);
  const std::int64_t expires_at = now + kDeviceCodeTtl;
  auto done = store_.write([&](StoreTxn& txn) -> Result<void> {
    std::string code;
    for (int attempt = 0;; ++attempt) {  // a code still in use is drawn again
      auto drawn = random_user_code();
      if (!drawn) return std::unexpected(drawn.error());
      auto taken = txn.get_entry(kUserCodes, digest(*drawn));
      if (!taken) return std::unexpected(taken.error());
      if (!*taken) {
        code = std::move(*drawn);
        break;
      }
      if (attempt == 8) return fail(Errc::internal, "no free user code");
    }
    Json device = Json::object();
    device.set("client_id", Json::string(request.client_id))
        .set("scope", Json::string(request.scope))
        .set("user_code", Json::string(digest(code)))
        .set("state", Json::string("pending"))
        .set("interval", Json::integer(interval))
        .set("last_poll", Json::integer(0))
        .set("expires_at", Json::integer(expires_at));
    if (auto put = txn.put_entry(kDevices, device_key, device.dump(), expires_at + kKeepExpired); !put) return put;
    Json pointer = Json::object();
    pointer.set("device", Json::string(device_key));
    started.user_code = code.substr(0, 4) + "-" + code.substr(4);
    return txn.put_entry(kUserCodes, digest(code), pointer.dump(), expires_at);
  });
  if (!done) return std::unexpected(done.error());
  return started;
}

Result<DeviceRequest> DeviceAuthorizations::find(std::string_view user_code, std::int64_t now) {
  DeviceRequest request;
  auto done = store_.read([&](StoreTxn& txn) -> Result<void> {
    auto found = pending_by_user_code(txn, user_code, now);
    if (!found) return std::unexpected(found.error());
    request = request_of(found->second);
    return {};
  });
  if (!done) return std::unexpected(done.error());
  return request;
}

Result<void> DeviceAuthorizations::decide(std::string_view user_code, bool allow, const DeviceApproval& approval,
                                          std::int64_t now) {
  return store_.write([&](StoreTxn& txn) -> Result<void> {
    auto found = pending_by_user_code(txn, user_code, now);
    if (!found) return std::unexpected(found.error());
    auto& [device_key, device] = *found;
    device.set("state", Json::string(allow ? "approved" : "denied"));
    if (allow) {
      Json by = Json::object();
      by.set("user_id", Json::string(approval.user_id))
          .set("username", Json::string(approval.username))
          .set("amr", Json::string(approval.amr))
          .set("auth_time", Json::integer(approval.auth_time));
      device.set("approval", std::move(by));
    }
    const auto expires_at = device.get_integer("expires_at").value_or(now);
    if (auto put = txn.put_entry(kDevices, device_key, device.dump(), expires_at + kKeepExpired); !put) return put;
    return txn.delete_entry(kUserCodes, digest(normalized_user_code(user_code)));
  });
}

Result<DevicePoll> DeviceAuthorizations::poll(std::string_view device_code, std::string_view client_id,
                                              std::int64_t now) {
  if (device_code.empty() || device_code.size() > 128) return fail(Errc::invalid_token, "malformed device_code");
  const auto key = digest(device_code);
  DevicePoll result;
  auto done = store_.write([&](StoreTxn& txn) -> Result<void> {
    auto found = entry(txn, kDevices, key);
    if (!found) return std::unexpected(found.error());
    if (!*found || text(**found, "client_id") != client_id) return fail(Errc::invalid_token, "unknown device_code");
    Json& device = **found;
    result.request = request_of(device);
    const auto state = text(device, "state");
    const auto expires_at = device.get_integer("expires_at").value_or(0);
    if (state == "approved") {
      const Json by = device.get("approval");
      result.state = DevicePollState::approved;
      result.approval = {text(by, "user_id"), text(by, "username"), text(by, "amr"),
                         by.get_integer("auth_time").value_or(0)};
      return txn.delete_entry(kDevices, key);
    }
    if (state == "denied") {
      result.state = DevicePollState::denied;
      return txn.delete_entry(kDevices, key);
    }
    if (expires_at <= now) {
      result.state = DevicePollState::expired;
      return {};
    }
    auto interval = device.get_integer("interval").value_or(kSlowDownStep);
    const auto last = device.get_integer("last_poll").value_or(0);
    result.state = DevicePollState::pending;
    if (last > 0 && now - last < interval) {
      result.state = DevicePollState::slow_down;
      interval += kSlowDownStep;
      device.set("interval", Json::integer(interval));
    }
    device.set("last_poll", Json::integer(now));
    return txn.put_entry(kDevices, key, device.dump(), expires_at + kKeepExpired);
  });
  if (!done) return std::unexpected(done.error());
  return result;
}

Result<bool> DeviceAuthorizations::may_try(std::string_view user_id, std::int64_t now) {
  bool allowed = true;
  auto done = store_.read([&](StoreTxn& txn) -> Result<void> {
    auto found = entry(txn, kFailures, user_id);
    if (!found) return std::unexpected(found.error());
    if (*found && (*found)->get_integer("until").value_or(0) > now) {
      allowed = (*found)->get_integer("count").value_or(0) < kMaxUserCodeFailures;
    }
    return {};
  });
  if (!done) return std::unexpected(done.error());
  return allowed;
}

Result<void> DeviceAuthorizations::record_wrong_code(std::string_view user_id, std::int64_t now) {
  return store_.write([&](StoreTxn& txn) -> Result<void> {
    auto found = entry(txn, kFailures, user_id);
    if (!found) return std::unexpected(found.error());
    std::int64_t count = 0;
    std::int64_t until = now + kUserCodeFailureWindow;
    if (*found && (*found)->get_integer("until").value_or(0) > now) {
      count = (*found)->get_integer("count").value_or(0);
      until = (*found)->get_integer("until").value_or(until);
    }
    Json counter = Json::object();
    counter.set("count", Json::integer(count + 1)).set("until", Json::integer(until));
    return txn.put_entry(kFailures, user_id, counter.dump(), until);
  });
}

}  // namespace authd
