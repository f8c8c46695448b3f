// The one place that includes the OpenGL loader (glad, generated at build time) before
// GLFW. Include this instead of <glad/gl.h> or <GLFW/glfw3.h> directly.
// The browser build has no loader: emscripten's GLFW includes OpenGL ES 3 (WebGL 2).
#pragma once
#ifdef __EMSCRIPTEN__
#define GLFW_INCLUDE_ES3
#include <GLFW/glfw3.h>
#else
#define GLFW_INCLUDE_NONE
// clang-format off: glad must come before GLFW
#include <GLFW/glfw3.h>
#include <glad/gl.h>
// clang-format on
#endif
