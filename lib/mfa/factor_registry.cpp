// The second-factor methods by name (authd/second_factor_methods.hpp): the
// built-in ones and any a program registers. Read on every status and code
// check, so a method is held by shared_ptr: replacing one leaves the copy a
// running check holds intact. The amr and acr rules of tokens read the
// methods' declarations here too.
#include <algorithm>
#include <mutex>

#include "authd/mfa.hpp"
#include "authd/second_factor_methods.hpp"
#include "builtin_methods.hpp"

namespace authd {
namespace {

struct Registry {
  std::mutex lock;
  std::vector<std::shared_ptr<const SecondFactorMethod>> methods;
};

// Whether the space-separated `amr` holds `value`.
bool shows(std::string_view amr, std::string_view value) {
  if (value.empty()) return false;
  while (!amr.empty()) {
    const auto end = std::min(amr.find(' '), amr.size());
    if (amr.substr(0, end) == value) return true;
    amr.remove_prefix(std::min(end + 1, amr.size()));
  }
  return false;
}

Registry& registry() {
  static Registry* made = [] {
    auto* r = new Registry;  // never destroyed: lookups may come from static destructors
    for (auto method : mfa_methods::builtin()) {
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

std::string second_factor_acr(std::string_view amr) {
  std::string acr = "1";
  for (const auto& method : second_factor_methods()) {
    if (shows(amr, method->amr)) acr = std::max(acr, method->acr);
  }
  return acr;
}

bool amr_has_second_factor(std::string_view amr) {
  bool possession = false;
  bool other = shows(amr, kPasswordAmr) || shows(amr, kProviderAmr);
  for (const auto& method : second_factor_methods()) {
    possession = possession || shows(amr, method->amr);
    other = other || shows(amr, method->multi_factor_amr);
  }
  return possession && other;
}

}  // namespace authd
