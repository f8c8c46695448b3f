// The one place that includes the OpenGL loader (glad, generated at build time) before
// GLFW. Include this instead of <glad/gl.h> or <GLFW/glfw3.h> directly.
#pragma once
#define GLFW_INCLUDE_NONE
// clang-format off: glad must come before GLFW
#include <GLFW/glfw3.h>
#include <glad/gl.h>
// clang-format on
