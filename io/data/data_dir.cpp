// The one data lookup (data_dir.hpp).
#include "io/data/data_dir.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "core/wm/dream_lab_model.hpp"

namespace poslab::io {
namespace fs = std::filesystem;
namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : std::string();
}

fs::path exe_dir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : exe.parent_path();
}

// True when `path` lies inside `dir` (both absolute and normalised).
bool inside(const fs::path& path, const fs::path& dir) {
  const auto [d, p] = std::mismatch(dir.begin(), dir.end(), path.begin(), path.end());
  return d == dir.end();
}

struct Choice {
  fs::path dir;
  const char* rule;
};

Choice choose() {
  if (const std::string d = env("POSLAB_DATA_DIR"); !d.empty())
    return {fs::absolute(d).lexically_normal(), "POSLAB_DATA_DIR"};
  const fs::path exe = exe_dir();
  const fs::path installed = (exe / ".." / "share" / "poslab").lexically_normal();
  std::error_code ec;
  if (!exe.empty() && fs::is_directory(installed, ec)) return {installed, "installed"};
#if defined(POSLAB_SOURCE_DIR) && defined(POSLAB_BINARY_DIR)
  // Only a binary of this very build tree falls back to the sources: an installed copy never
  // reads a checkout that happens to sit where it was built.
  // /proc/self/exe is canonical, so the build tree is too (a symlink in its path).
  const fs::path binary = fs::weakly_canonical(fs::path(POSLAB_BINARY_DIR), ec);
  if (!exe.empty() && !binary.empty() && inside(exe.lexically_normal(), binary))
    return {fs::path(POSLAB_SOURCE_DIR).lexically_normal(), "source tree"};
#endif
  return {installed, "installed"};  // missing: data_problems() names it
}

}  // namespace

std::string data_dir() {
  return choose().dir.string();
}

std::string data_dir_rule() {
  return choose().rule;
}

std::string lessons_dir() {
  if (std::string d = env("POSLAB_LESSONS_DIR"); !d.empty()) return d;
  return (choose().dir / "lessons").string();
}

std::string i18n_dir() {
  if (const std::string d = env("POSLAB_ASSETS_DIR"); !d.empty()) return d + "/i18n";
  return (choose().dir / "assets" / "i18n").string();
}

std::string welcome_dir() {
  if (const std::string d = env("POSLAB_ASSETS_DIR"); !d.empty()) return d + "/welcome";
  return (choose().dir / "assets" / "welcome").string();
}

std::string models_dir() {
  if (std::string d = env("POSLAB_MODELS_DIR"); !d.empty()) return d;
  return (choose().dir / "assets" / "models").string();
}

std::vector<std::string> data_problems() {
  const std::string fix =
      " (reinstall PosLab, or set POSLAB_DATA_DIR to the folder holding "
      "lessons/ and assets/)";
  std::vector<std::string> out;
  std::error_code ec;
  const fs::path catalog = fs::path(lessons_dir()) / "catalog.toml";
  if (!fs::is_regular_file(catalog, ec))
    out.push_back("lessons: " + catalog.string() + " not found" + fix);
  for (const char* lang : {"en", "zh"}) {
    const fs::path shell = fs::path(i18n_dir()) / lang / "shell.toml";
    if (!fs::is_regular_file(shell, ec))
      out.push_back("interface texts: " + shell.string() + " not found" + fix);
  }
  // The two shipped models: RoPE's, and the learned-absolute one the other variants dream with.
  for (const wm::DreamVariant w : {wm::DreamVariant::rope, wm::DreamVariant::recompute}) {
    const fs::path file = fs::path(models_dir()) / wm::dream_model_file(w);
    if (!fs::is_regular_file(file, ec))
      out.push_back("world model: " + file.string() + " not found" + fix);
  }
  return out;
}

}  // namespace poslab::io
