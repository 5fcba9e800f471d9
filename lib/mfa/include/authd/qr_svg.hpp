// A QR code as an SVG image (libqrencode; lib/mfa/qr_svg.cpp is the only
// file that includes it).
#pragma once

#include <string>
#include <string_view>

#include "authd/error.hpp"

namespace authd {

// `text` (e.g. an otpauth:// URI) as a square SVG document, error-correction
// level M, 4-module quiet zone. Error: internal when libqrencode fails.
Result<std::string> qr_svg(std::string_view text);

}  // namespace authd
