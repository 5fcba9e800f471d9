// The device authorization grant (RFC 8628) of authd as OpenID provider: a
// device without a browser (a TV, a command line) gets a device_code for
// itself and a short user_code that its user types at /device in a browser
// where they are signed in; the device polls /token until the user allowed
// or denied it, or the codes expire.
//
// Both codes are kept in the store only as their SHA-256 (namespaces
// "oidc_device" and "oidc_user_code", so every node sees them). A user code
// is 8 letters from a 20-consonant alphabet (RFC 8628 §6.1: 20^8, about 2^34.6,
// shown as XXXX-XXXX; case, spaces and dashes are ignored when typed); a
// signed-in user who types kMaxUserCodeFailures wrong codes in
// kUserCodeFailureWindow seconds is refused until the window passes, so
// guessing someone else's pending code is out of reach. A device code is
// 32 random bytes, redeemed once.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "authd/error.hpp"
#include "authd/store.hpp"

namespace authd {

inline constexpr std::int64_t kDeviceCodeTtl = 600;
inline constexpr std::int64_t kSlowDownStep = 5;  // RFC 8628 §3.5
inline constexpr int kMaxUserCodeFailures = 5;
inline constexpr std::int64_t kUserCodeFailureWindow = 600;

struct DeviceStart {
  std::string device_code;
  std::string user_code;  // XXXX-XXXX
  std::int64_t expires_in = kDeviceCodeTtl;
};

// What the device asked for, shown to the user before they allow it.
struct DeviceRequest {
  std::string client_id;
  std::string scope;
};

// Who allowed it, and how they had signed in.
struct DeviceApproval {
  std::string user_id;
  std::string username;
  std::string amr;
  std::int64_t auth_time = 0;
};

enum class DevicePollState {
  pending,    // authorization_pending
  slow_down,  // polled sooner than the interval (which grows by kSlowDownStep)
  denied,     // access_denied (the codes are gone)
  expired,    // expired_token
  approved,   // the tokens may be issued (the codes are gone: once only)
};

struct DevicePoll {
  DevicePollState state = DevicePollState::pending;
  DeviceRequest request;
  DeviceApproval approval;  // when approved
};

// A user code as typed, upper-cased, without spaces and dashes; "" when it
// cannot be one (length, alphabet).
std::string normalized_user_code(std::string_view typed);

class DeviceAuthorizations {
 public:
  explicit DeviceAuthorizations(Store& store) : store_(store) {}

  // New codes for `request`; the device polls no faster than every
  // `interval` seconds. Errors: storage errors.
  Result<DeviceStart> start(const DeviceRequest& request, std::int64_t interval, std::int64_t now);

  // The undecided request a typed user code names. Error invalid_token
  // (malformed, unknown, expired, decided).
  Result<DeviceRequest> find(std::string_view user_code, std::int64_t now);
  // The user's answer; the user code is used up. Error invalid_token.
  Result<void> decide(std::string_view user_code, bool allow, const DeviceApproval& approval, std::int64_t now);

  // The device's poll. Error invalid_token: unknown device code, or another
  // client's.
  Result<DevicePoll> poll(std::string_view device_code, std::string_view client_id, std::int64_t now);

  // Wrong user codes typed by `user_id`: whether they may try again now
  // (false: throttled until the window passes), and counting one more.
  Result<bool> may_try(std::string_view user_id, std::int64_t now);
  Result<void> record_wrong_code(std::string_view user_id, std::int64_t now);

 private:
  Store& store_;
};

}  // namespace authd
