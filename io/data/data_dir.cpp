// The one data lookup (data_dir.hpp).
#include "io/data/data_dir.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "core/lm/length_lab.hpp"
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

// Only a binary of a build tree falls back to the sources: the build tree's root holds
// poslab-source-tree.txt (written by io/CMakeLists.txt at configure time) with the source
// tree's path. An installed copy has no such file above it, so it never reads a checkout that
// happens to sit where it was built, and no build path is compiled in. Looked up once.
fs::path source_tree_of(const fs::path& exe) {
  static const fs::path found = [&] {
    std::error_code ec;
    for (fs::path dir = exe; !dir.empty() && dir != dir.parent_path(); dir = dir.parent_path()) {
      const fs::path marker = dir / "poslab-source-tree.txt";
      if (!fs::is_regular_file(marker, ec) || !fs::is_regular_file(dir / "CMakeCache.txt", ec))
        continue;
      std::ifstream in(marker);
      std::string source;
      if (std::getline(in, source) && !source.empty() && fs::is_directory(source, ec))
        return fs::path(source).lexically_normal();
    }
    return fs::path();
  }();
  return found;
}

struct Choice {
  fs::path dir;
  const char* rule;
};

Choice choose() {
  if (const std::string d = env("POSLAB_DATA_DIR"); !d.empty())
    return {fs::absolute(d).lexically_normal(), "POSLAB_DATA_DIR"};
  const fs::path exe = exe_dir();
  const fs::path installed = (exe / ".." / "share" / "poslab" / "data").lexically_normal();
  std::error_code ec;
  if (!exe.empty() && fs::is_directory(installed, ec)) return {installed, "installed"};
  if (const fs::path source = source_tree_of(exe); !source.empty()) return {source, "source tree"};
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

std::string icons_dir() {
  if (const std::string d = env("POSLAB_ASSETS_DIR"); !d.empty()) return d + "/icons";
  return (choose().dir / "assets" / "icons").string();
}

std::string models_dir() {
  if (std::string d = env("POSLAB_MODELS_DIR"); !d.empty()) return d;
  return (choose().dir / "assets" / "models").string();
}

std::string lm_held_out_path() {
  return (fs::path(models_dir()) / "lm_held_out.txt").string();
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
  // Every shipped world model: RoPE's and the learned-absolute one the other variants dream
  // with, in both sizes the dream lab offers.
  auto need = [&](const char* what, const fs::path& file) {
    if (!fs::is_regular_file(file, ec))
      out.push_back(std::string(what) + ": " + file.string() + " not found" + fix);
  };
  for (const wm::DreamModelSize size : {wm::DreamModelSize::tiny, wm::DreamModelSize::paper})
    for (const wm::DreamVariant w : {wm::DreamVariant::rope, wm::DreamVariant::recompute})
      need("world model", fs::path(models_dir()) / wm::dream_model_file(w, size));
  // The length lab, the attention lab's trained source and the quiz: every language model,
  // the held-out text they are measured on, and the measured table the lessons cite.
  for (const std::string& name : lm::length_model_names())
    need("language model", fs::path(models_dir()) / ("lm_" + name + ".safetensors"));
  need("held-out text", lm_held_out_path());
  need("measured curves", fs::path(models_dir()) / "lm_eval.json");
  return out;
}

}  // namespace poslab::io
