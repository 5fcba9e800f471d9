// What a new-device notice says of the browser: a summary from a fixed list,
// never the client's own text. The User-Agent is whatever the client sends;
// copied into a genuine security mail it would let anyone write text and
// links in authd's voice to the account's owner.
#pragma once

#include <string>
#include <string_view>

namespace authd {

// "Firefox on Linux", "Chrome on Android", "Safari on iOS", "unknown browser
// on Windows", "unknown browser": browser and system names from fixed
// lists, recognised by the tokens browsers send; anything else is unknown.
std::string summarise_user_agent(std::string_view user_agent);

}  // namespace authd
