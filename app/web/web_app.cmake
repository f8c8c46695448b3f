# The browser build of the app (POSLAB_WEB; included by app/CMakeLists.txt): the app's
# sources with web/main.cpp for main.cpp, linked to build/web/site/poslab.{html,js,wasm,data}.
# build/web/site holds exactly the site's files (the page, the files it fetches, its icon,
# a README on hosting it) and build/web/poslab-site.tar.gz the same folder as a tarball.
# The user folders are IndexedDB-backed (-lidbfs.js; web/main.cpp). Single-threaded (no -pthread: the page needs no COOP/COEP headers; background jobs run
# inline, app/widgets/background_job.hpp), WebGL 2 through emscripten's GLFW, exceptions on.
# The data folder (lessons, interface texts, the tiny world models, welcome pictures) and the
# DejaVu fonts are preloaded at the paths the desktop app reads them from; the Chinese font (5 MB)
# is not: it lies beside the page (fonts/) and is fetched when Chinese is chosen.
add_executable(poslab web/main.cpp web/stb_impl.cpp ${POSLAB_APP_SOURCES})
target_include_directories(poslab PRIVATE ${PROJECT_SOURCE_DIR})
target_compile_definitions(poslab PRIVATE IMGUI_DISABLE_OBSOLETE_FUNCTIONS)
target_link_libraries(poslab PRIVATE poslab_core poslab_io_dataset poslab_io_checkpoint
  poslab_io_lessons poslab_io_video poslab_io_labjson poslab_io_dreams poslab_io_length poslab_io_quiz
  poslab_io_training poslab_io_files poslab_web_imgui
  poslab_web_cli11 nlohmann_json::nlohmann_json)
poslab_target_defaults(poslab)
set(_site "${PROJECT_BINARY_DIR}/site")
set_target_properties(poslab PROPERTIES SUFFIX ".html" RUNTIME_OUTPUT_DIRECTORY "${_site}")
set(_fonts /usr/share/fonts/truetype/dejavu)
set(_data)  # SHELL: keeps CMake from merging the repeated --preload-file flags
foreach(d lessons assets/i18n assets/welcome)
  list(APPEND _data "SHELL:--preload-file ${PROJECT_SOURCE_DIR}/${d}@/poslab/${d}")
endforeach()
# No shipped model is preloaded: they lie beside the page (below) and a lab fetches the ones
# it needs when it first needs them (the dream lab's world models, the length lab's).
foreach(f DejaVuSans.ttf DejaVuSans-Bold.ttf DejaVuSansMono.ttf)
  list(APPEND _data "SHELL:--preload-file ${_fonts}/${f}@${_fonts}/${f}")
endforeach()
target_link_options(poslab PRIVATE
  -sUSE_GLFW=3 -sMIN_WEBGL_VERSION=2 -sMAX_WEBGL_VERSION=2
  -sALLOW_MEMORY_GROWTH=1 -sINITIAL_MEMORY=134217728
  -sEXPORTED_FUNCTIONS=_main,_poslab_web_status,_poslab_web_numbers,_poslab_web_open,_poslab_web_save,_poslab_web_items,_poslab_web_wake,_poslab_web_request_frames,_poslab_web_wheel,_poslab_web_tick,_poslab_web_reset_longest
  -sEXPORTED_RUNTIME_METHODS=ccall,cwrap,UTF8ToString,FS -lidbfs.js
  -sMINIFY_HTML=0 "--shell-file=${CMAKE_CURRENT_SOURCE_DIR}/web/shell.html"
  "--pre-js=${CMAKE_CURRENT_SOURCE_DIR}/web/page.js"
  ${_data})
# The length lab's models beside the page (assets/models/, the path they have under the data
# folder), with the held-out text of their split (assets/models/lm_held_out.txt, shipped with
# the models since the desktop package has no fortune files either).
# The lab fetches them when it is first opened (AppContext::fetch_files, web/main.cpp).
set(_lm_out "${_site}/assets/models")
# The world models lie there too (tiny: 0.9 MB each, paper-size: 5.4 MB each): the dream lab
# fetches the one its `size` asks for when first asked.
file(GLOB _lm_models RELATIVE "${PROJECT_SOURCE_DIR}/assets/models"
     "${PROJECT_SOURCE_DIR}/assets/models/lm_*.safetensors"
     "${PROJECT_SOURCE_DIR}/assets/models/lm_held_out.txt"
     "${PROJECT_SOURCE_DIR}/assets/models/wm_tiny_*.safetensors"
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
# The training text of "Train your own" (io's lm_default_text_paths: the fortune files of
# fortunes-min, fortune-mod and fortune-zh) in fortunes/ beside the page, fetched when a run
# starts (web/main.cpp); without them the run says which file is missing.
foreach(f fortunes literature riddles computers science people wisdom humorists education work
          platitudes love tao startrek miscellaneous tang300 song100)
  if(EXISTS /usr/share/games/fortunes/${f})
    configure_file(/usr/share/games/fortunes/${f} ${_site}/fortunes/${f} COPYONLY)
    list(APPEND _lm_files "${_site}/fortunes/${f}")
  else()
    message(WARNING "/usr/share/games/fortunes/${f} not found: the page cannot train a model")
  endif()
endforeach()
# The Chinese font beside the page, fetched only when Chinese is chosen (web/main.cpp).
set(_cjk /usr/share/fonts/truetype/wqy/wqy-microhei.ttc)
if(EXISTS ${_cjk})
  configure_file(${_cjk} ${_site}/fonts/wqy-microhei.ttc COPYONLY)
  list(APPEND _lm_files "${_site}/fonts/wqy-microhei.ttc")
else()
  message(WARNING "${_cjk} not found (fonts-wqy-microhei): the browser build will show no Chinese")
endif()
# The page's icon (shell.html), PosLab's own: no favicon.ico 404 on a first visit; and how
# to host the folder (app/web/SITE_README.md).
configure_file(${PROJECT_SOURCE_DIR}/packaging/poslab.svg ${_site}/favicon.svg COPYONLY)
configure_file(${CMAKE_CURRENT_SOURCE_DIR}/web/SITE_README.md ${_site}/README.md COPYONLY)
# The site as one tarball (site/...), remade when any of its files changes.
add_custom_command(OUTPUT "${PROJECT_BINARY_DIR}/poslab-site.tar.gz"
  COMMAND ${CMAKE_COMMAND} -E chdir "${PROJECT_BINARY_DIR}" ${CMAKE_COMMAND} -E tar czf
          poslab-site.tar.gz site
  DEPENDS poslab "$<TARGET_FILE:poslab>" ${_lm_files} "${_site}/favicon.svg" "${_site}/README.md"
  COMMENT "The site as a tarball: poslab-site.tar.gz" VERBATIM)
add_custom_target(poslab_site ALL DEPENDS "${PROJECT_BINARY_DIR}/poslab-site.tar.gz")
set_property(TARGET poslab APPEND PROPERTY LINK_DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/web/shell.html"
             "${CMAKE_CURRENT_SOURCE_DIR}/web/page.js")
# stb's implementation sections have no include guard: keep them out of the unity batches.
set_source_files_properties(web/stb_impl.cpp PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
# The page's own file: its anonymous helpers (frame, now_s) stay out of the app's batches.
set_source_files_properties(web/main.cpp PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
# EM_ASM's JavaScript names its arguments $0, $1.
set_source_files_properties(web/main.cpp PROPERTIES COMPILE_OPTIONS -Wno-dollar-in-identifier-extension)
