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
