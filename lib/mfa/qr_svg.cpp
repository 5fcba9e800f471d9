#include "authd/qr_svg.hpp"

#include <qrencode.h>

#include <memory>

namespace authd {
namespace {

struct QrFree {
  void operator()(QRcode* code) const noexcept { QRcode_free(code); }
};

constexpr int kQuietZone = 4;

}  // namespace

Result<std::string> qr_svg(std::string_view text) {
  const std::string input(text);
  std::unique_ptr<QRcode, QrFree> code(QRcode_encodeString(input.c_str(), 0, QR_ECLEVEL_M, QR_MODE_8, 1));
  if (!code) return fail(Errc::internal, "cannot encode the QR code");
  const int width = code->width;
  const int size = width + 2 * kQuietZone;
  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 " + std::to_string(size) + " " +
                    std::to_string(size) + "\" shape-rendering=\"crispEdges\"><rect width=\"100%\" height=\"100%\" "
                    "fill=\"#fff\"/><path fill=\"#000\" d=\"";
  for (int y = 0; y < width; ++y) {
    for (int x = 0; x < width; ++x) {
      if (code->data[y * width + x] & 1) {  // bit 0: dark module
        svg += "M" + std::to_string(x + kQuietZone) + " " + std::to_string(y + kQuietZone) + "h1v1h-1z";
      }
    }
  }
  svg += "\"/></svg>";
  return svg;
}

}  // namespace authd
