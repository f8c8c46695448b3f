# The browser build of the app (POSLAB_WEB; included by app/CMakeLists.txt): the app's
# sources with web/main.cpp for main.cpp, linked to build/web/poslab.{html,js,wasm,data}.
# The user folders are IndexedDB-backed (-lidbfs.js; web/main.cpp). Single-threaded (no -pthread: the page needs no COOP/COEP headers; background jobs run
# inline, app/widgets/background_job.hpp), WebGL 2 through emscripten's GLFW, exceptions on.
# The data folder (lessons, interface texts, the tiny world models, welcome pictures) and the
# DejaVu fonts are preloaded at the paths the desktop app reads them from; the Chinese font (5 MB)
# is not: it lies beside the page (fonts/) and is fetched when Chinese is chosen.
add_executable(poslab web/main.cpp web/stb_impl.cpp ${POSLAB_APP_SOURCES})
target_include_directories(poslab PRIVATE ${PROJECT_SOURCE_DIR})
target_compile_definitions(poslab PRIVATE IMGUI_DISABLE_OBSOLETE_FUNCTIONS)
target_link_libraries(poslab PRIVATE poslab_core poslab_io_dataset poslab_io_checkpoint
  poslab_io_lessons poslab_io_video poslab_io_labjson poslab_io_dreams poslab_web_imgui
  poslab_web_cli11 nlohmann_json::nlohmann_json)
poslab_target_defaults(poslab)
set_target_properties(poslab PROPERTIES SUFFIX ".html"
                      RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}")
set(_fonts /usr/share/fonts/truetype/dejavu)
set(_data)  # SHELL: keeps CMake from merging the repeated --preload-file flags
foreach(d lessons assets/i18n assets/welcome)
  list(APPEND _data "SHELL:--preload-file ${PROJECT_SOURCE_DIR}/${d}@/poslab/${d}")
endforeach()
# Of the shipped models only the tiny world models the dream lab starts with: the length
# lab's language models (4 MB) would push the first load past its 6 MB budget; they lie beside
# the page (below) and are fetched when the lab is first opened.
foreach(f wm_tiny_rope.safetensors wm_tiny_absolute.safetensors)
  list(APPEND _data "SHELL:--preload-file ${PROJECT_SOURCE_DIR}/assets/models/${f}@/poslab/assets/models/${f}")
endforeach()
foreach(f DejaVuSans.ttf DejaVuSans-Bold.ttf DejaVuSansMono.ttf)
  list(APPEND _data "SHELL:--preload-file ${_fonts}/${f}@${_fonts}/${f}")
endforeach()
target_link_options(poslab PRIVATE
  -sUSE_GLFW=3 -sMIN_WEBGL_VERSION=2 -sMAX_WEBGL_VERSION=2
  -sALLOW_MEMORY_GROWTH=1 -sINITIAL_MEMORY=134217728
  -sEXPORTED_FUNCTIONS=_main,_poslab_web_status,_poslab_web_numbers,_poslab_web_open,_poslab_web_save,_poslab_web_items
  -sEXPORTED_RUNTIME_METHODS=ccall,cwrap,UTF8ToString,FS -lidbfs.js
  -sMINIFY_HTML=0 "--shell-file=${CMAKE_CURRENT_SOURCE_DIR}/web/shell.html"
  "--pre-js=${CMAKE_CURRENT_SOURCE_DIR}/web/page.js"
  ${_data})
# The length lab's models beside the page (assets/models/, the path they have under the data
# folder), with the held-out text of their split (assets/models/lm_held_out.txt, shipped with
# the models since the desktop package has no fortune files either).
# The lab fetches them when it is first opened (AppContext::fetch_files, web/main.cpp).
set(_lm_out "${PROJECT_BINARY_DIR}/assets/models")
# The paper-size world models (5.4 MB each) lie there too: the dream lab fetches one when
# `size=paper` first asks for it.
file(GLOB _lm_models RELATIVE "${PROJECT_SOURCE_DIR}/assets/models"
     "${PROJECT_SOURCE_DIR}/assets/models/lm_*.safetensors"
     "${PROJECT_SOURCE_DIR}/assets/models/lm_held_out.txt"
     "${PROJECT_SOURCE_DIR}/assets/models/wm_paper_*.safetensors")
set(_lm_files)
foreach(f ${_lm_models})
  add_custom_command(OUTPUT "${_lm_out}/${f}"
    COMMAND ${CMAKE_COMMAND} -E copy "${PROJECT_SOURCE_DIR}/assets/models/${f}" "${_lm_out}/${f}"
    DEPENDS "${PROJECT_SOURCE_DIR}/assets/models/${f}" VERBATIM)
  list(APPEND _lm_files "${_lm_out}/${f}")
endforeach()
add_custom_target(poslab_length_files ALL DEPENDS ${_lm_files})
add_dependencies(poslab poslab_length_files)
# The Chinese font beside the page, fetched only when Chinese is chosen (web/main.cpp).
set(_cjk /usr/share/fonts/truetype/wqy/wqy-microhei.ttc)
if(EXISTS ${_cjk})
  configure_file(${_cjk} ${PROJECT_BINARY_DIR}/fonts/wqy-microhei.ttc COPYONLY)
else()
  message(WARNING "${_cjk} not found (fonts-wqy-microhei): the browser build will show no Chinese")
endif()
set_property(TARGET poslab APPEND PROPERTY LINK_DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/web/shell.html"
             "${CMAKE_CURRENT_SOURCE_DIR}/web/page.js")
# stb's implementation sections have no include guard: keep them out of the unity batches.
set_source_files_properties(web/stb_impl.cpp PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
# The page's own file: its anonymous helpers (frame, now_s) stay out of the app's batches.
set_source_files_properties(web/main.cpp PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
# EM_ASM's JavaScript names its arguments $0, $1.
set_source_files_properties(web/main.cpp PROPERTIES COMPILE_OPTIONS -Wno-dollar-in-identifier-extension)
