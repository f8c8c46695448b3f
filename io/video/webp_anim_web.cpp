// The browser build's io/video (POSLAB_WEB): no libwebp there, so recording an animated
// WebP is a FileError saying it is desktop only (the Record button shows it as its error).
#include <string>

#include "core/common/errors.hpp"
#include "io/video/webp_anim.hpp"

namespace poslab::io {
namespace {

[[noreturn]] void desktop_only(const std::string& path) {
  throw FileError(path.empty() ? std::string("(recording)") : path,
                  "recording animated WebP is desktop only; record in the desktop app "
                  "(scripts/setup.sh run)");
}

}  // namespace

void check_writable_output(const std::string& path) {
  desktop_only(path);
}

struct WebpAnimWriter::Impl {};

WebpAnimWriter::WebpAnimWriter(std::string path, WebpAnimOptions options)
    : path_(std::move(path)), opt_(options) {
  desktop_only(path_);
}
WebpAnimWriter::~WebpAnimWriter() = default;
void WebpAnimWriter::add(const RgbaImage&) {
  desktop_only(path_);
}
size_t WebpAnimWriter::finish() {
  desktop_only(path_);
}

WebpAnimInfo webp_anim_decode(const std::string& path, std::vector<RgbaImage>*) {
  desktop_only(path);
}

}  // namespace poslab::io
