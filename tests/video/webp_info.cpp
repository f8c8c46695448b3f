// webp_info FILE [--frame K OUT.png]: decodes an animated WebP with libwebp's own decoder
// (WebPAnimDecoder) and prints {"frames": N, "width": W, "height": H, "duration_ms": T,
// "timestamps_ms": [...]} for the GUI tests and the closing notes; --frame also writes
// frame K as a PNG to look at. Exit 2 with a message naming the file if it does not decode.
#include <stb/stb_image_write.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/common/errors.hpp"
#include "io/video/webp_anim.hpp"

int main(int argc, char** argv) {
  if (argc != 2 && !(argc == 5 && std::string(argv[2]) == "--frame")) {
    std::fprintf(stderr, "usage: webp_info FILE.webp [--frame K OUT.png]\n");
    return 2;
  }
  try {
    std::vector<poslab::io::RgbaImage> frames;
    const auto info = poslab::io::webp_anim_decode(argv[1], argc == 5 ? &frames : nullptr);
    std::printf(
        "{\"frames\": %d, \"width\": %d, \"height\": %d, \"duration_ms\": %d, "
        "\"timestamps_ms\": [",
        info.frames, info.width, info.height, info.duration_ms);
    for (size_t i = 0; i < info.timestamps_ms.size(); ++i)
      std::printf("%s%d", i ? ", " : "", info.timestamps_ms[i]);
    std::printf("]}\n");
    if (argc == 5) {
      const int k = std::atoi(argv[3]);
      if (k < 0 || k >= info.frames) {
        std::fprintf(stderr, "webp_info: --frame %d: the file has frames 0..%d\n", k,
                     info.frames - 1);
        return 2;
      }
      const auto& f = frames[static_cast<size_t>(k)];
      if (!stbi_write_png(argv[4], f.width, f.height, 4, f.rgba.data(), f.width * 4)) {
        std::fprintf(stderr, "webp_info: %s: cannot write the PNG\n", argv[4]);
        return 2;
      }
    }
  } catch (const poslab::Error& e) {
    std::fprintf(stderr, "webp_info: %s\n", e.what());
    return 2;
  }
  return 0;
}
