# Dependencies of the browser build (POSLAB_WEB, under emcmake). The header-only libraries
# come from the same Debian packages as the desktop build, each through a folder holding only
# its own headers (never /usr/include itself: glibc's headers would shadow emscripten's);
# Dear ImGui with its GLFW and OpenGL 3 backends and md4c are compiled from Debian's source
# packages, which scripts/web_sources.sh fetched into POSLAB_WEB_SOURCES. GLFW and WebGL 2
# are emscripten's own (-sUSE_GLFW=3); no emscripten port is used (they download).
if(NOT EMSCRIPTEN)
  message(FATAL_ERROR "POSLAB_WEB needs emscripten: run scripts/web_build.sh (emcmake cmake)")
endif()
set(POSLAB_WEB_SOURCES "${PROJECT_BINARY_DIR}/src" CACHE PATH
    "Dear ImGui and md4c source trees (scripts/web_sources.sh)")
foreach(f imgui/imgui.cpp md4c/src/md4c.c)
  if(NOT EXISTS "${POSLAB_WEB_SOURCES}/${f}")
    message(FATAL_ERROR "${POSLAB_WEB_SOURCES}/${f} is missing: run scripts/web_sources.sh first")
  endif()
endforeach()

# One folder of links: <name> -> /usr/include/<name> for each header-only library.
set(_inc "${PROJECT_BINARY_DIR}/web_include")
file(MAKE_DIRECTORY "${_inc}")
foreach(dir eigen3/Eigen nlohmann toml++ CLI stb)
  get_filename_component(name "${dir}" NAME)
  if(NOT EXISTS "/usr/include/${dir}")
    message(FATAL_ERROR "/usr/include/${dir} is missing: install scripts/debian-packages.txt")
  endif()
  if(NOT EXISTS "${_inc}/${name}")
    file(CREATE_LINK "/usr/include/${dir}" "${_inc}/${name}" SYMBOLIC)
  endif()
endforeach()
function(poslab_web_headers target)
  add_library(${target} INTERFACE IMPORTED GLOBAL)
  target_include_directories(${target} SYSTEM INTERFACE "${_inc}")
endfunction()
poslab_web_headers(Eigen3::Eigen)
poslab_web_headers(nlohmann_json::nlohmann_json)
poslab_web_headers(tomlplusplus::tomlplusplus)
poslab_web_headers(poslab_web_cli11)

# md4c: only md4c.c (the Markdown parser; not its HTML renderer).
add_library(poslab_web_md4c STATIC "${POSLAB_WEB_SOURCES}/md4c/src/md4c.c")
target_include_directories(poslab_web_md4c SYSTEM PUBLIC "${POSLAB_WEB_SOURCES}/md4c/src")
add_library(PkgConfig::MD4C ALIAS poslab_web_md4c)

# Dear ImGui (the version libimgui-dev ships) with GLFW + OpenGL ES 3 (WebGL 2) backends.
set(_im "${POSLAB_WEB_SOURCES}/imgui")
add_library(poslab_web_imgui STATIC
  ${_im}/imgui.cpp ${_im}/imgui_draw.cpp ${_im}/imgui_tables.cpp ${_im}/imgui_widgets.cpp
  ${_im}/imgui_demo.cpp ${_im}/misc/cpp/imgui_stdlib.cpp
  ${_im}/backends/imgui_impl_glfw.cpp ${_im}/backends/imgui_impl_opengl3.cpp)
target_include_directories(poslab_web_imgui SYSTEM PUBLIC ${_im} ${_im}/misc/cpp
                           PRIVATE ${_im}/backends)
# The test-engine hooks give the page's tests each labelled item's place (app/web/main.cpp).
target_compile_definitions(poslab_web_imgui PUBLIC IMGUI_IMPL_OPENGL_ES3 IMGUI_ENABLE_TEST_ENGINE)

# PosLab's errors are exceptions (core throws, the app shows them): catching them is on.
add_compile_options(-fexceptions)
add_link_options(-fexceptions)
# Alone: in a unity batch after the GLFW backend, GLFW's <GL/gl.h> would make it call
# glPolygonMode, which WebGL lacks.
set_source_files_properties(${_im}/backends/imgui_impl_opengl3.cpp PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)

# WebAssembly SIMD (128-bit; Chromium 91+, Firefox 89+, Safari 16.4+): the compiler
# vectorises PosLab's loops with it. Eigen 3.4.0 (Debian 12) has no WebAssembly backend and its
# SSE path does not build through emscripten's SSE emulation (no <mmintrin.h> in Debian's
# emscripten 3.1.6; x86 inline asm in Eigen's SSE PacketMath.h), so Eigen's own kernels stay
# scalar. Measured with and without: docs/web.md (tests/web/kernel_bench.sh).
option(POSLAB_WEB_SIMD "Browser build with WebAssembly SIMD (-msimd128)" ON)
if(POSLAB_WEB_SIMD)
  add_compile_options(-msimd128)
  add_link_options(-msimd128)
endif()
