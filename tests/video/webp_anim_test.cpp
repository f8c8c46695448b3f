// Animated WebP recordings (io/video): N frames in decode to N frames with libwebp's own
// decoder (WebPAnimDecoder), at the right size and timing, lossless pixels equal; a
// recording that is cancelled or fails leaves no file and an existing file untouched; an
// unwritable or missing folder is refused up front with a message naming the path.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/common/errors.hpp"
#include "io/video/webp_anim.hpp"

namespace fs = std::filesystem;
using poslab::io::RgbaImage;
using poslab::io::WebpAnimOptions;
using poslab::io::WebpAnimWriter;

namespace {

// A moving square on a gradient: every frame differs from the one before.
RgbaImage synthetic_frame(int w, int h, int k) {
  RgbaImage img{w, h, std::vector<uint8_t>(static_cast<size_t>(w) * h * 4)};
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      uint8_t* p = &img.rgba[(static_cast<size_t>(y) * w + x) * 4];
      const bool box = x >= (3 * k) % w && x < (3 * k) % w + 8 && y >= h / 4 && y < h / 4 + 8;
      p[0] = box ? 255 : static_cast<uint8_t>(x * 255 / w);
      p[1] = box ? 255 : static_cast<uint8_t>(y * 255 / h);
      p[2] = static_cast<uint8_t>((k * 17) & 0xff);
      p[3] = 255;
    }
  return img;
}

struct TempDir {
  fs::path dir;
  TempDir() {
    char tmpl[] = "/tmp/poslab_webp_XXXXXX";
    dir = ::mkdtemp(tmpl);
  }
  ~TempDir() {
    std::error_code ec;
    fs::permissions(dir, fs::perms::owner_all, ec);
    fs::remove_all(dir, ec);
  }
  size_t entries() const {
    return static_cast<size_t>(
        std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
  }
};

}  // namespace

TEST_CASE("a lossless recording of N frames decodes to the same N frames") {
  TempDir t;
  const std::string path = (t.dir / "anim.webp").string();
  WebpAnimOptions o;
  o.lossless = true;
  o.fps = 25;
  const int n = 12, w = 64, h = 48;
  {
    WebpAnimWriter wr(path, o);
    for (int k = 0; k < n; ++k) wr.add(synthetic_frame(w, h, k));
    const size_t bytes = wr.finish();
    REQUIRE(bytes == fs::file_size(path));
  }
  std::vector<RgbaImage> frames;
  const auto info = poslab::io::webp_anim_decode(path, &frames);
  CHECK(info.frames == n);
  CHECK(info.width == w);
  CHECK(info.height == h);
  CHECK(info.loop_count == 0);
  CHECK(info.duration_ms == n * 40);
  REQUIRE(frames.size() == static_cast<size_t>(n));
  for (int k = 0; k < n; ++k) {
    INFO("frame " << k);
    CHECK(info.timestamps_ms[k] == (k + 1) * 40);
    CHECK(frames[k].rgba == synthetic_frame(w, h, k).rgba);
  }
  CHECK(t.entries() == 1);  // no temporary or probe file left beside it
}

TEST_CASE("a lossy recording keeps frame count, size and timing, pixels close") {
  TempDir t;
  const std::string path = (t.dir / "lossy.webp").string();
  for (int fps : {10, 15, 30}) {
    INFO("fps " << fps);
    WebpAnimOptions o;
    o.fps = fps;
    o.quality = 90;
    const int n = 9;
    WebpAnimWriter wr(path, o);
    for (int k = 0; k < n; ++k) wr.add(synthetic_frame(80, 60, k));
    wr.finish();
    std::vector<RgbaImage> frames;
    const auto info = poslab::io::webp_anim_decode(path, &frames);
    CHECK(info.frames == n);
    CHECK(std::abs(info.duration_ms - n * 1000 / fps) <= 1);
    for (int k = 0; k < n; ++k) {
      const RgbaImage ref = synthetic_frame(80, 60, k);
      double err = 0;
      for (size_t i = 0; i < ref.rgba.size(); ++i)
        err += std::abs(int(ref.rgba[i]) - int(frames[k].rgba[i]));
      INFO("frame " << k);
      CHECK(err / ref.rgba.size() < 4.0);  // mean absolute error per channel, of 255
    }
  }
}

TEST_CASE("wide frames are scaled to max_width, and frames of another size to the canvas") {
  TempDir t;
  const std::string path = (t.dir / "scaled.webp").string();
  WebpAnimOptions o;
  o.max_width = 100;
  WebpAnimWriter wr(path, o);
  wr.add(synthetic_frame(400, 200, 0));
  wr.add(synthetic_frame(300, 300, 1));  // the window was resized while recording
  CHECK(wr.canvas_width() == 100);
  CHECK(wr.canvas_height() == 50);
  wr.finish();
  const auto info = poslab::io::webp_anim_decode(path);
  CHECK(info.width == 100);
  CHECK(info.height == 50);
  CHECK(info.frames == 2);
}

TEST_CASE("equal consecutive frames merge into one longer frame, total time kept") {
  TempDir t;
  const std::string path = (t.dir / "still.webp").string();
  WebpAnimOptions o;
  o.lossless = true;
  WebpAnimWriter wr(path, o);
  for (int k = 0; k < 5; ++k) wr.add(synthetic_frame(32, 32, k < 3 ? 0 : 1));
  wr.finish();
  const auto info = poslab::io::webp_anim_decode(path);
  CHECK(info.frames == 2);
  CHECK(info.duration_ms == 5 * 40);
}

TEST_CASE("a cancelled recording leaves no file and an existing file untouched") {
  TempDir t;
  const std::string fresh = (t.dir / "fresh.webp").string();
  const std::string old = (t.dir / "old.webp").string();
  std::ofstream(old) << "previous contents";
  {
    WebpAnimWriter a(fresh, {});
    WebpAnimWriter b(old, {});
    for (int k = 0; k < 4; ++k) {
      a.add(synthetic_frame(40, 30, k));
      b.add(synthetic_frame(40, 30, k));
    }
  }  // destroyed without finish(): cancelled
  CHECK_FALSE(fs::exists(fresh));
  std::ifstream in(old);
  std::string s;
  std::getline(in, s);
  CHECK(s == "previous contents");
  CHECK(t.entries() == 1);
}

TEST_CASE("a missing or unwritable folder is refused up front, naming the path") {
  TempDir t;
  const std::string missing = (t.dir / "no_such_dir" / "a.webp").string();
  CHECK_THROWS_WITH(WebpAnimWriter(missing, {}),
                    Catch::Contains(missing) && Catch::Contains("does not exist"));
  CHECK_THROWS_WITH(WebpAnimWriter(t.dir.string(), {}), Catch::Contains("is a folder"));
  // A read-only folder; root writes in any folder of a normal file system, but not in /sys.
  std::string path = "/sys/poslab_test.webp";
  if (::geteuid() != 0) {
    const fs::path ro = t.dir / "ro";
    fs::create_directory(ro);
    fs::permissions(ro, fs::perms::owner_read | fs::perms::owner_exec);
    path = (ro / "a.webp").string();
  }
  CHECK_THROWS_WITH(WebpAnimWriter(path, {}),
                    Catch::Contains(path) && Catch::Contains("not writable"));
  CHECK_THROWS_AS(poslab::io::check_writable_output(path), poslab::FileError);
}

TEST_CASE("bad options and frames are refused with the value named") {
  TempDir t;
  const std::string path = (t.dir / "x.webp").string();
  WebpAnimOptions o;
  o.fps = 0;
  CHECK_THROWS_WITH(WebpAnimWriter(path, o), Catch::Contains("fps = 0"));
  WebpAnimWriter wr(path, {});
  RgbaImage bad{10, 10, std::vector<uint8_t>(7)};
  CHECK_THROWS_AS(wr.add(bad), poslab::InputError);
  CHECK_THROWS_WITH(wr.finish(), Catch::Contains("no frames"));
  CHECK_FALSE(fs::exists(path));
  CHECK_THROWS_WITH(poslab::io::webp_anim_decode(path), Catch::Contains(path));
  std::ofstream(path) << "RIFF not really";
  CHECK_THROWS_WITH(poslab::io::webp_anim_decode(path), Catch::Contains("not a WebP animation"));
}
