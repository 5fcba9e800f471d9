// The second-factor methods by name (authd/second_factor_methods.hpp): the
// built-in ones and any a program registers. Read on every status and code
// check, so a method is held by shared_ptr: replacing one leaves the copy a
// running check holds intact.
#include <mutex>

#include "authd/second_factor_methods.hpp"
#include "builtin_methods.hpp"

namespace authd {
namespace {

struct Registry {
  std::mutex lock;
  std::vector<std::shared_ptr<const SecondFactorMethod>> methods;
};

Registry& registry() {
  static Registry* made = [] {
    auto* r = new Registry;  // never destroyed: lookups may come from static destructors
    for (auto method : {mfa_methods::totp_method(), mfa_methods::passkey_method(), mfa_methods::recovery_method()}) {
      r->methods.push_back(std::make_shared<const SecondFactorMethod>(std::move(method)));
    }
    return r;
  }();
  return *made;
}

}  // namespace

void register_second_factor_method(SecondFactorMethod method) {
  if (!method.present) method.present = [](const Json&) { return false; };
  if (!method.usable) method.usable = method.present;
  if (!method.describe) method.describe = [](const Json&, Json&) {};
  auto added = std::make_shared<const SecondFactorMethod>(std::move(method));
  auto& r = registry();
  std::lock_guard guard(r.lock);
  for (auto& known : r.methods) {
    if (known->name == added->name) {
      known = std::move(added);
      return;
    }
  }
  r.methods.push_back(std::move(added));
}

std::shared_ptr<const SecondFactorMethod> find_second_factor_method(std::string_view name) {
  auto& r = registry();
  std::lock_guard guard(r.lock);
  for (const auto& known : r.methods) {
    if (known->name == name) return known;
  }
  return nullptr;
}

std::vector<std::shared_ptr<const SecondFactorMethod>> second_factor_methods() {
  auto& r = registry();
  std::lock_guard guard(r.lock);
  return r.methods;
}

}  // namespace authd
