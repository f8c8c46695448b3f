// Export files and preset links (see export_files.hpp).
#include "app/export/export_files.hpp"

#include <imgui.h>
#include <imgui_internal.h>
#include <stb/stb_image_write.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "app/gfx/gl.hpp"
#include "core/common/errors.hpp"
#include "io/files/atomic_file.hpp"

namespace poslab::app {
namespace fs = std::filesystem;
namespace {

constexpr std::string_view kScheme = "poslab:";

// Characters escaped in a link besides non-ASCII bytes and controls: they end or break a
// URI in chat messages and slides. '%' is not among them: the preset's escapes stay.
bool link_escapes(unsigned char c) {
  return c < 0x21 || c >= 0x7f ||
         std::string_view("\"'<>\\^`{|}").find(static_cast<char>(c)) != std::string_view::npos;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

}  // namespace

void write_lab_numbers(const Panel& p, const std::string& csv_path, const std::string& json_path) {
  const LabNumbers n = p.numbers();
  if (n.csv.empty() && n.json.empty())
    throw InputError(n.why_not.empty() ? share_message("share.why.no_numbers") : n.why_not);
  for (const std::string* path : {&csv_path, &json_path})
    if (!path->empty())
      if (const Message why = export_path_problem(*path); !why.empty())
        throw FileError(*path, why.text);
  if (!csv_path.empty()) write_file_atomically(csv_path, n.csv);
  if (!json_path.empty()) write_file_atomically(json_path, n.json);
}

RgbImage read_pixels(int fb_height, int x0, int y0, int x1, int y1) {
  RgbImage img;
  img.width = std::max(0, x1 - x0);
  img.height = std::max(0, y1 - y0);
  img.rgb.resize(static_cast<size_t>(img.width) * img.height * 3);
  if (img.rgb.empty()) return img;
  // RGBA: the one read-back format every GL and WebGL 2 guarantees (WebGL has no reliable
  // GL_RGB read of the default framebuffer); the alpha is dropped below.
  std::vector<unsigned char> up(static_cast<size_t>(img.width) * img.height * 4);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(x0, fb_height - y1, img.width, img.height, GL_RGBA, GL_UNSIGNED_BYTE, up.data());
  for (int y = 0; y < img.height; ++y) {  // GL rows go bottom-up
    const unsigned char* from = up.data() + static_cast<size_t>(img.height - 1 - y) * img.width * 4;
    unsigned char* to = img.rgb.data() + static_cast<size_t>(y) * img.width * 3;
    for (int x = 0; x < img.width; ++x, from += 4, to += 3) std::copy_n(from, 3, to);
  }
  return img;
}

void add_caption(RgbImage& img, const std::string& caption, const ImFont* font, bool dark) {
  if (!font || img.width <= 0) return;
  ImFontAtlas* atlas = font->ContainerAtlas;
  unsigned char* alpha = nullptr;
  int aw = 0, ah = 0;
  atlas->GetTexDataAsAlpha8(&alpha, &aw, &ah);
  if (!alpha) return;
  const float size = font->FontSize;
  const int pad = static_cast<int>(size * 0.5f);
  // Wrap: break the caption into lines that fit the width (presets have few spaces).
  std::vector<std::vector<unsigned>> lines(1);
  float x = 0;
  for (const char* s = caption.c_str(); *s;) {
    unsigned c = 0;
    s += ImTextCharFromUtf8(&c, s, nullptr);
    if (c == 0) break;
    const ImFontGlyph* g = font->FindGlyph(static_cast<ImWchar>(c));
    const float adv = g ? g->AdvanceX : size * 0.5f;
    if (x + adv > img.width - 2 * pad && !lines.back().empty()) {
      lines.emplace_back();
      x = 0;
    }
    lines.back().push_back(c);
    x += adv;
  }
  const int line_h = static_cast<int>(size * 1.3f);
  const int strip = 2 * pad + line_h * static_cast<int>(lines.size());
  const unsigned char bg = dark ? 24 : 250, fg = dark ? 235 : 20;
  const size_t old = img.rgb.size();
  img.rgb.resize(old + static_cast<size_t>(img.width) * strip * 3, bg);
  const int top = img.height;
  img.height += strip;
  for (size_t l = 0; l < lines.size(); ++l) {
    float pen = static_cast<float>(pad);
    const int base = top + pad + static_cast<int>(l) * line_h;
    for (unsigned c : lines[l]) {
      const ImFontGlyph* g = font->FindGlyph(static_cast<ImWchar>(c));
      if (!g) continue;
      const int gx0 = static_cast<int>(pen + g->X0), gy0 = base + static_cast<int>(g->Y0);
      const int gw = static_cast<int>(g->X1 - g->X0), gh = static_cast<int>(g->Y1 - g->Y0);
      for (int y = 0; y < gh; ++y)
        for (int xx = 0; xx < gw; ++xx) {
          const int px = gx0 + xx, py = gy0 + y;
          if (px < 0 || px >= img.width || py < top || py >= img.height) continue;
          // Nearest texel of the glyph's atlas rectangle (the atlas may be oversampled).
          const int u = std::clamp(
              static_cast<int>((g->U0 + (g->U1 - g->U0) * (xx + 0.5f) / gw) * aw), 0, aw - 1);
          const int v = std::clamp(
              static_cast<int>((g->V0 + (g->V1 - g->V0) * (y + 0.5f) / gh) * ah), 0, ah - 1);
          const float a = alpha[static_cast<size_t>(v) * aw + u] / 255.0f;
          unsigned char* p = img.rgb.data() + (static_cast<size_t>(py) * img.width + px) * 3;
          for (int k = 0; k < 3; ++k)
            // NOLINTNEXTLINE(bugprone-incorrect-roundings): the value is in [0, 255]
            p[k] = static_cast<unsigned char>(p[k] * (1 - a) + fg * a + 0.5f);
        }
      pen += g->AdvanceX;
    }
  }
}

void write_png(const std::string& path, const RgbImage& img) {
  if (img.width <= 0 || img.height <= 0) throw FileError(path, "the view to export is empty");
  if (const Message why = export_path_problem(path); !why.empty()) throw FileError(path, why.text);
  std::string bytes;
  const auto sink = [](void* ctx, void* data, int n) {
    static_cast<std::string*>(ctx)->append(static_cast<const char*>(data), static_cast<size_t>(n));
  };
  stbi_flip_vertically_on_write(0);
  if (!stbi_write_png_to_func(sink, &bytes, img.width, img.height, 3, img.rgb.data(),
                              img.width * 3))
    throw FileError(path, "could not encode the PNG");
  write_file_atomically(path, bytes);
}

bool image_varies(const RgbImage& img) {
  for (size_t i = 3; i < img.rgb.size(); ++i)
    if (img.rgb[i] != img.rgb[i % 3]) return true;
  return false;
}

std::string preset_uri(const std::string& preset) {
  static const char* hex = "0123456789ABCDEF";
  std::string out(kScheme);
  for (unsigned char c : preset) {
    if (link_escapes(c)) {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

bool is_preset_uri(const std::string& text) {
  if (text.size() < kScheme.size()) return false;
  for (size_t i = 0; i < kScheme.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(text[i])) != kScheme[i]) return false;
  return true;
}

std::string preset_from_uri(const std::string& uri) {
  if (!is_preset_uri(uri))
    throw InputError(
        share_message("share.problem.not_link", {message_arg("text", uri.substr(0, 80))}));
  std::string rest = uri.substr(kScheme.size());
  while (!rest.empty() && rest.front() == '/') rest.erase(rest.begin());  // poslab://, poslab:/
  std::string out;
  for (size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] == '%' && i + 2 < rest.size()) {
      const int hi = hex_value(rest[i + 1]), lo = hex_value(rest[i + 2]);
      const int c = hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
      if (c >= 0 && link_escapes(static_cast<unsigned char>(c))) {  // only what preset_uri escaped
        out += static_cast<char>(c);
        i += 2;
        continue;
      }
    }
    out += rest[i];
  }
  if (out.empty())
    throw InputError(
        share_message("share.problem.no_lab", {message_arg("text", uri.substr(0, 80))}));
  return out;
}

namespace {
// Set once before the first frame by --click-fuzz, read by export_path_problem.
std::string g_file_sandbox;
}  // namespace

void set_file_sandbox(const std::string& dir) {
  std::error_code ec;
  g_file_sandbox = fs::weakly_canonical(dir, ec).string();
}

Message export_path_problem(const std::string& path) {
  if (path.empty()) return share_message("share.problem.no_name");
  std::error_code ec;
  const fs::path p(path);
  if (fs::is_directory(p, ec)) return share_message("share.problem.is_folder");
  const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  const auto folder = [&] { return std::vector<MessageArg>{message_arg("folder", dir.string())}; };
  if (!g_file_sandbox.empty()) {
    const std::string real = fs::weakly_canonical(fs::absolute(dir, ec), ec).string();
    if (ec || (real != g_file_sandbox && real.rfind(g_file_sandbox + "/", 0) != 0))
      return share_message("share.problem.not_writable", folder());
  }
  if (!fs::exists(dir, ec)) return share_message("share.problem.no_folder", folder());
  if (!fs::is_directory(dir, ec)) return share_message("share.problem.not_folder", folder());
  if (::access(dir.c_str(), W_OK) != 0)
    return share_message("share.problem.not_writable", folder());
  return {};
}

}  // namespace poslab::app
