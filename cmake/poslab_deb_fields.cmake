# CPack post-build script (CPACK_POST_BUILD_SCRIPTS, set in poslab_install.cmake): adds the
# control fields CPack's DEB generator cannot write to each .deb it made. Built-Using names the
# source packages whose code is compiled in under a licence that asks for its source to stay
# available (Debian policy 7.8): Eigen's MPL-2.0. The others compiled in (Dear ImGui, CLI11,
# nlohmann/json, glad's loader: Expat, BSD-3-clause, WTFPL/CC0 with Apache-2.0) ask only for
# their notices, which packaging/copyright carries.
foreach(deb IN LISTS CPACK_PACKAGE_FILES)
  if(NOT deb MATCHES "\\.deb$" OR CPACK_POSLAB_BUILT_USING STREQUAL "")
    continue()
  endif()
  set(dir "${deb}.fields")
  file(REMOVE_RECURSE "${dir}")
  execute_process(COMMAND dpkg-deb -R "${deb}" "${dir}" RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "dpkg-deb -R ${deb} failed")
  endif()
  file(READ "${dir}/DEBIAN/control" control)
  string(REGEX REPLACE "\n+$" "" control "${control}")
  string(APPEND control "\nBuilt-Using: ${CPACK_POSLAB_BUILT_USING}\n")
  file(WRITE "${dir}/DEBIAN/control" "${control}")
  execute_process(COMMAND dpkg-deb --root-owner-group -Zxz -b "${dir}" "${deb}"
                  OUTPUT_QUIET RESULT_VARIABLE rc)
  file(REMOVE_RECURSE "${dir}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "dpkg-deb -b ${deb} failed")
  endif()
endforeach()
