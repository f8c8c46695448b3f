// The window's icon from the data folder's PNGs (see window_icon.hpp).
#include "app/window_icon.hpp"

#include <GLFW/glfw3.h>
#include <stb/stb_image.h>

#include <filesystem>
#include <string>
#include <vector>

#include "io/data/data_dir.hpp"

namespace poslab::app {

void set_window_icon(GLFWwindow* window) {
  std::vector<GLFWimage> images;
  std::vector<stbi_uc*> pixels;
  for (const int n : {16, 24, 32, 48, 64, 128, 256}) {
    const std::string path =
        (std::filesystem::path(io::icons_dir()) / ("poslab-" + std::to_string(n) + ".png"))
            .string();
    int w = 0, h = 0, channels = 0;
    stbi_uc* px = stbi_load(path.c_str(), &w, &h, &channels, 4);
    if (!px) continue;
    pixels.push_back(px);
    images.push_back({w, h, px});
  }
  if (!images.empty()) glfwSetWindowIcon(window, static_cast<int>(images.size()), images.data());
  for (stbi_uc* px : pixels) stbi_image_free(px);  // GLFW copied them
}

}  // namespace poslab::app
