// Animated WebP writer and decoder on libwebp (see webp_anim.hpp). The encoded animation
// stays in memory (libwebp keeps the compressed frames) until finish() hands the bytes to
// write_file_atomically, so no partial file ever appears under the output's name.
#include "io/video/webp_anim.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <webp/demux.h>
#include <webp/encode.h>
#include <webp/mux.h>

#include <cerrno>
#include <cmath>
#include <cstring>

#include "core/common/errors.hpp"
#include "io/files/atomic_file.hpp"

namespace poslab::io {
namespace {

std::string folder_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash);
}

int timestamp_ms(int frame, int fps) {
  return static_cast<int>(std::lround(static_cast<double>(frame) * 1000.0 / fps));
}

// RAII for a WebPPicture.
struct Picture {
  WebPPicture pic{};
  Picture() {
    if (!WebPPictureInit(&pic)) throw Error("libwebp: version mismatch (WebPPictureInit)");
  }
  ~Picture() { WebPPictureFree(&pic); }
  Picture(const Picture&) = delete;
  Picture& operator=(const Picture&) = delete;
};

}  // namespace

void check_writable_output(const std::string& path) {
  if (path.empty()) throw FileError("(empty path)", "give a file name for the recording");
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    throw FileError(path, "is a folder; give a file name such as " + path + "/fight.webp");
  const std::string dir = folder_of(path);
  const std::string probe = path + ".probe." + std::to_string(::getpid());
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int err = errno;
    struct stat ds {};
    if (err == ENOENT && ::stat(dir.c_str(), &ds) != 0)
      throw FileError(path, "the folder " + dir + " does not exist; create it or choose another");
    if (err == EACCES || err == EPERM || err == EROFS)
      throw FileError(path, "the folder " + dir + " is not writable (" + std::strerror(err) +
                                "); choose another folder");
    throw FileError(path, std::string("cannot write in ") + dir + ": " + std::strerror(err));
  }
  ::close(fd);
  ::unlink(probe.c_str());
}

struct WebpAnimWriter::Impl {
  WebPAnimEncoder* enc = nullptr;
  WebPConfig config{};
  ~Impl() {
    if (enc) WebPAnimEncoderDelete(enc);
  }
};

WebpAnimWriter::WebpAnimWriter(std::string path, WebpAnimOptions options)
    : path_(std::move(path)), opt_(options), impl_(std::make_unique<Impl>()) {
  using O = WebpAnimOptions;
  require_in_range("fps", opt_.fps, O::fps_range);
  require_in_range("quality", opt_.quality, O::quality_range);
  require_in_range("max_width", opt_.max_width, O::max_width_range);
  require_in_range("loop_count", opt_.loop_count, O::loop_count_range);
  check_writable_output(path_);
  if (!WebPConfigInit(&impl_->config)) throw Error("libwebp: version mismatch (WebPConfigInit)");
  impl_->config.quality = opt_.quality;
  impl_->config.method = 4;  // speed/size trade-off: 0 fast .. 6 small; 4 is cwebp's default
  if (opt_.lossless) {
    impl_->config.lossless = 1;
    impl_->config.exact = 1;  // keep RGB under transparent pixels too: decoded == encoded
    impl_->config.method = 1;
    impl_->config.quality = 25;  // lossless: effort, not fidelity; low is much faster
  }
}

WebpAnimWriter::~WebpAnimWriter() = default;

void WebpAnimWriter::add(const RgbaImage& frame) {
  if (frame.width <= 0 || frame.height <= 0 ||
      frame.rgba.size() != static_cast<size_t>(frame.width) * frame.height * 4)
    throw InputError("recording frame " + std::to_string(frames_) + ": " +
                     std::to_string(frame.width) + " x " + std::to_string(frame.height) +
                     " pixels with " + std::to_string(frame.rgba.size()) + " bytes (need w*h*4)");
  if (!impl_->enc) {
    width_ = frame.width;
    height_ = frame.height;
    if (width_ > opt_.max_width) {
      height_ = std::max(
          1, static_cast<int>(std::lround(static_cast<double>(height_) * opt_.max_width / width_)));
      width_ = opt_.max_width;
    }
    WebPAnimEncoderOptions eo;
    if (!WebPAnimEncoderOptionsInit(&eo))
      throw Error("libwebp: version mismatch (WebPAnimEncoderOptionsInit)");
    eo.anim_params.loop_count = opt_.loop_count;
    eo.allow_mixed = 0;
    impl_->enc = WebPAnimEncoderNew(width_, height_, &eo);
    if (!impl_->enc) throw Error(path_ + ": libwebp could not start an animation (out of memory?)");
  }
  Picture p;
  p.pic.use_argb = 1;
  p.pic.width = frame.width;
  p.pic.height = frame.height;
  if (!WebPPictureImportRGBA(&p.pic, frame.rgba.data(), frame.width * 4))
    throw Error(path_ + ": libwebp could not take frame " + std::to_string(frames_) +
                " (out of memory?)");
  if ((frame.width != width_ || frame.height != height_) &&
      !WebPPictureRescale(&p.pic, width_, height_))
    throw Error(path_ + ": libwebp could not scale frame " + std::to_string(frames_));
  if (!WebPAnimEncoderAdd(impl_->enc, &p.pic, timestamp_ms(frames_, opt_.fps), &impl_->config))
    throw Error(path_ + ": encoding frame " + std::to_string(frames_) +
                " failed: " + WebPAnimEncoderGetError(impl_->enc));
  ++frames_;
}

size_t WebpAnimWriter::finish() {
  if (!impl_->enc || frames_ == 0)
    throw Error(path_ + ": the recording has no frames; nothing was written");
  if (!WebPAnimEncoderAdd(impl_->enc, nullptr, timestamp_ms(frames_, opt_.fps), nullptr))
    throw Error(path_ + ": finishing the animation failed: " + WebPAnimEncoderGetError(impl_->enc));
  WebPData data;
  WebPDataInit(&data);
  if (!WebPAnimEncoderAssemble(impl_->enc, &data))
    throw Error(path_ +
                ": assembling the animation failed: " + WebPAnimEncoderGetError(impl_->enc));
  const std::string bytes(reinterpret_cast<const char*>(data.bytes), data.size);
  WebPDataClear(&data);
  write_file_atomically(path_, bytes);  // throws FileError naming the path (disk full, ...)
  return bytes.size();
}

WebpAnimInfo webp_anim_decode(const std::string& path, std::vector<RgbaImage>* frames_out) {
  const std::string bytes = read_file(path);
  WebPData data{reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()};
  WebPAnimDecoderOptions o;
  if (!WebPAnimDecoderOptionsInit(&o)) throw Error("libwebp: version mismatch (demux)");
  o.color_mode = MODE_RGBA;
  o.use_threads = 0;
  WebPAnimDecoder* dec = WebPAnimDecoderNew(&data, &o);
  if (!dec) throw FileError(path, "is not a WebP animation libwebp can read (damaged?)");
  WebPAnimInfo ai;
  if (!WebPAnimDecoderGetInfo(dec, &ai)) {
    WebPAnimDecoderDelete(dec);
    throw FileError(path, "libwebp could not read the animation header");
  }
  WebpAnimInfo info;
  info.width = static_cast<int>(ai.canvas_width);
  info.height = static_cast<int>(ai.canvas_height);
  info.loop_count = static_cast<int>(ai.loop_count);
  while (WebPAnimDecoderHasMoreFrames(dec)) {
    uint8_t* buf = nullptr;
    int ts = 0;
    if (!WebPAnimDecoderGetNext(dec, &buf, &ts)) {
      WebPAnimDecoderDelete(dec);
      throw FileError(path, "frame " + std::to_string(info.frames) + " does not decode (damaged?)");
    }
    ++info.frames;
    info.timestamps_ms.push_back(ts);
    info.duration_ms = ts;
    if (frames_out) {
      RgbaImage img;
      img.width = info.width;
      img.height = info.height;
      img.rgba.assign(buf, buf + static_cast<size_t>(info.width) * info.height * 4);
      frames_out->push_back(std::move(img));
    }
  }
  WebPAnimDecoderDelete(dec);
  return info;
}

}  // namespace poslab::io
