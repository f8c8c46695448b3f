// Animated WebP files through Debian's libwebp (WebPAnimEncoder from libwebpmux, decoding
// with WebPAnimDecoder from libwebpdemux): what the arena and the dream lab record. Frames
// go in one at a time (RGBA, any size: each is scaled to the file's canvas), the file is
// written atomically at finish(), so a cancelled or failed recording leaves no partial file
// and an existing file is untouched until the new one is complete.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/common/param_range.hpp"

namespace poslab::io {

struct WebpAnimOptions {
  int fps = 25;           // frames per second of the video, [1, 60]; frame k shows at k*1000/fps ms
  bool lossless = false;  // exact pixels (larger files) or lossy at `quality`
  float quality = 80;     // lossy quality, [0, 100] (lossless: effort)
  int max_width = 960;    // frames wider than this are scaled down (aspect kept), [16, 4096] px
  int loop_count = 0;     // times the animation plays, 0 = forever, [0, 65535]
  static constexpr ParamRange fps_range{1, 60};
  static constexpr ParamRange quality_range{0, 100};
  static constexpr ParamRange max_width_range{16, 4096};
  static constexpr ParamRange loop_count_range{0, 65535};
};

// One picture: width x height RGBA pixels, rows top first, no padding.
struct RgbaImage {
  int width = 0, height = 0;
  std::vector<uint8_t> rgba;  // 4 * width * height bytes
};

// Throws FileError naming `path` if its folder does not exist or cannot be written (a probe
// file is created there and removed), or if `path` is a folder. Call before recording.
void check_writable_output(const std::string& path);

// An animation being encoded. Not thread-safe: one thread adds frames and finishes.
class WebpAnimWriter {
 public:
  // Checks the options (InputError) and the output folder (check_writable_output).
  WebpAnimWriter(std::string path, WebpAnimOptions options);
  ~WebpAnimWriter();  // without finish(): nothing is written
  WebpAnimWriter(const WebpAnimWriter&) = delete;
  WebpAnimWriter& operator=(const WebpAnimWriter&) = delete;

  // Appends a frame (timestamp frames() * 1000 / fps ms). The first frame fixes the canvas
  // (its size scaled down to max_width); later frames of another size are scaled to it.
  // Frames equal to the previous one are merged into it by libwebp (a longer duration).
  void add(const RgbaImage& frame);
  int frames() const { return frames_; }
  int canvas_width() const { return width_; }
  int canvas_height() const { return height_; }
  // Assembles the file and writes it atomically (temporary file + rename). Returns the
  // size in bytes. Throws FileError naming the path (disk full, folder gone) or Error if
  // no frame was added; the old file (if any) is then untouched.
  size_t finish();

 private:
  std::string path_;
  WebpAnimOptions opt_;
  struct Impl;
  std::unique_ptr<Impl> impl_;
  int frames_ = 0, width_ = 0, height_ = 0;
};

// What a decoder sees in an animated WebP file (libwebpdemux's WebPAnimDecoder).
struct WebpAnimInfo {
  int width = 0, height = 0;       // canvas, px
  int frames = 0;                  // frames in the file (after libwebp merged equal ones)
  int duration_ms = 0;             // end timestamp of the last frame
  int loop_count = 0;              // 0 = forever
  std::vector<int> timestamps_ms;  // end time of each frame
};

// Decodes the whole file; `frames_out` (optional) receives every full canvas, RGBA.
// Throws FileError naming the path if it is missing or not an animated WebP.
WebpAnimInfo webp_anim_decode(const std::string& path,
                              std::vector<RgbaImage>* frames_out = nullptr);

}  // namespace poslab::io
