// The browser summary of new-device notices (authd/device_notice.hpp).
#include "authd/device_notice.hpp"

#include <array>
#include <utility>

namespace authd {
namespace {

// Case-sensitive, as browsers send them. Order matters: Edge, Opera and
// Samsung Internet also say Chrome and Safari; Chrome also says Safari.
constexpr std::array<std::pair<std::string_view, std::string_view>, 10> kBrowsers{{
    {"Edg/", "Edge"},
    {"EdgA/", "Edge"},
    {"EdgiOS/", "Edge"},
    {"OPR/", "Opera"},
    {"SamsungBrowser/", "Samsung Internet"},
    {"Firefox/", "Firefox"},
    {"FxiOS/", "Firefox"},
    {"CriOS/", "Chrome"},
    {"Chrome/", "Chrome"},
    {"Safari/", "Safari"},
}};

// iPhone and iPad before Mac OS X (iOS says "like Mac OS X"), Android before Linux.
constexpr std::array<std::pair<std::string_view, std::string_view>, 8> kSystems{{
    {"iPhone", "iOS"},
    {"iPad", "iPadOS"},
    {"Android", "Android"},
    {"CrOS", "ChromeOS"},
    {"Windows", "Windows"},
    {"Mac OS X", "macOS"},
    {"Macintosh", "macOS"},
    {"Linux", "Linux"},
}};

template <std::size_t N>
std::string_view first_known(std::string_view agent, const std::array<std::pair<std::string_view, std::string_view>, N>& list) {
  for (const auto& [token, name] : list) {
    if (agent.find(token) != std::string_view::npos) return name;
  }
  return {};
}

}  // namespace

std::string summarise_user_agent(std::string_view user_agent) {
  // Only the start counts: a longer header is no browser's.
  const std::string_view agent = user_agent.substr(0, 512);
  const std::string_view browser = first_known(agent, kBrowsers);
  const std::string_view system = first_known(agent, kSystems);
  std::string shown = browser.empty() ? "unknown browser" : std::string(browser);
  if (!system.empty()) shown += " on " + std::string(system);
  return shown;
}

}  // namespace authd
