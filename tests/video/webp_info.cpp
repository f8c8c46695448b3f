// webp_info FILE: decodes an animated WebP with libwebp's own decoder (WebPAnimDecoder) and
// prints {"frames": N, "width": W, "height": H, "duration_ms": T} for the GUI tests and the
// closing notes. Exit 2 with a message naming the file if it does not decode.
#include <cstdio>

#include "core/common/errors.hpp"
#include "io/video/webp_anim.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: webp_info FILE.webp\n");
    return 2;
  }
  try {
    const auto info = poslab::io::webp_anim_decode(argv[1]);
    std::printf("{\"frames\": %d, \"width\": %d, \"height\": %d, \"duration_ms\": %d}\n",
                info.frames, info.width, info.height, info.duration_ms);
  } catch (const poslab::Error& e) {
    std::fprintf(stderr, "webp_info: %s\n", e.what());
    return 2;
  }
  return 0;
}
