# poslab_target_defaults(<target>): warnings and (optionally) sanitizers and fuzzing
# coverage for OUR targets only; third-party headers come in as SYSTEM includes and stay quiet.
# POSLAB_WERROR (CI: scripts/setup.sh test) turns those warnings into errors, so the build
# stays warning-free on both compilers.
option(POSLAB_WERROR "Treat warnings in PosLab's own targets as errors" OFF)
function(poslab_target_defaults target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow
                         -Wnon-virtual-dtor -Wcast-align -Wunused -Woverloaded-virtual
                         -Wnull-dereference)
  # GCC 12 reports -Wrestrict inside libstdc++'s own std::string concatenation ("x" + s)
  # once -O3 inlines it (GCC bug 105651, fixed in GCC 13): every report points into
  # char_traits.h, none at an overlap in our code. Off for GCC 12 only; clang checks it.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    target_compile_options(${target} PRIVATE -Wno-restrict)
  endif()
  if(POSLAB_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
  poslab_target_hardening(${target})
  if(POSLAB_SANITIZE)
    # -fno-sanitize-recover: undefined behaviour fails the test instead of printing a line
    # nobody reads. vptr needs RTTI of every class crossing our code; Debian's libraries
    # are not built for it, so it stays off.
    target_compile_options(${target} PRIVATE -fsanitize=address,undefined
                           -fno-sanitize-recover=undefined -fno-sanitize=vptr
                           -fno-omit-frame-pointer)
    target_link_options(${target} PRIVATE -fsanitize=address,undefined)
  endif()
  if(POSLAB_FUZZ)
    # Coverage counters in all of our code, so libFuzzer sees which branches an input took.
    target_compile_options(${target} PRIVATE -fsanitize=fuzzer-no-link)
  endif()
endfunction()

# Debian's hardening for our own code (what dpkg-buildflags' hardening=+all gives a package):
# stack protector, FORTIFY_SOURCE where the optimiser runs (not with the sanitizers, which
# replace the checked functions), format-string checks, and full RELRO with BIND_NOW for the
# programs. And no build-machine path in a binary: source and build folders are mapped to
# "." and "build" in file names the compiler records (__FILE__, debug information).
function(poslab_target_hardening target)
  if(POSLAB_WEB)
    return()
  endif()
  target_compile_options(${target} PRIVATE -fstack-protector-strong -Wformat
                         -Werror=format-security
                         -ffile-prefix-map=${PROJECT_SOURCE_DIR}/=
                         -ffile-prefix-map=${PROJECT_BINARY_DIR}/=build/)
  if(NOT POSLAB_SANITIZE AND NOT POSLAB_FUZZ)
    target_compile_definitions(${target} PRIVATE $<$<NOT:$<CONFIG:Debug>>:_FORTIFY_SOURCE=2>)
  endif()
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "EXECUTABLE")
    target_link_options(${target} PRIVATE -Wl,-z,relro -Wl,-z,now)
  endif()
endfunction()
