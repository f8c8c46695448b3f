# Installation (cmake --install) and packages (cpack -G DEB, cpack -G TGZ). FHS layout under
# the prefix; the data folder mirrors the source tree, so io/data/data_dir.cpp finds it as
# ../share/poslab/data beside the executables wherever the tree is unpacked. It is a folder of
# its own: with --prefix ~/.local, share/poslab is also the user's folder ($XDG_DATA_HOME/poslab:
# progress, own models), which the program's files never mix with.
#   bin/poslab, bin/poslab-cli
#   share/poslab/data/lessons/, share/poslab/data/assets/{i18n,models,welcome,icons}/
#   share/applications/poslab.desktop (poslab: links), share/icons/hicolor/scalable/apps/poslab.svg
#   and share/icons/hicolor/<N>x<N>/apps/poslab.png (N = 16 ... 256, also the window's icon)
#   share/metainfo/io.github.poslab.PosLab.metainfo.xml, share/man/man1/poslab{,-cli}.1.gz
#   share/doc/poslab/copyright, share/doc/poslab/changelog.Debian.gz
include(GNUInstallDirs)
set(POSLAB_PKG_DIR ${PROJECT_BINARY_DIR}/packaging)
# The Debian revision of the package (version 0.1.0-1): raised for a new package of the same
# upstream version; the changelog and the .deb's name carry it.
set(POSLAB_DEBIAN_REVISION 1)
file(MAKE_DIRECTORY ${POSLAB_PKG_DIR})

set(POSLAB_INSTALL_DATA ${CMAKE_INSTALL_DATADIR}/poslab/data)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/lessons DESTINATION ${POSLAB_INSTALL_DATA})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/assets/i18n ${PROJECT_SOURCE_DIR}/assets/models
                  ${PROJECT_SOURCE_DIR}/assets/welcome ${PROJECT_SOURCE_DIR}/assets/icons
        DESTINATION ${POSLAB_INSTALL_DATA}/assets)
install(FILES ${PROJECT_SOURCE_DIR}/packaging/poslab.desktop
        DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
install(FILES ${PROJECT_SOURCE_DIR}/packaging/poslab.svg
        DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
foreach(n 16 24 32 48 64 128 256)  # the same icon drawn at each size (scripts/make_icons.py)
  install(FILES ${PROJECT_SOURCE_DIR}/assets/icons/poslab-${n}.png
          DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/${n}x${n}/apps RENAME poslab.png)
endforeach()
configure_file(${PROJECT_SOURCE_DIR}/packaging/io.github.poslab.PosLab.metainfo.xml
               ${POSLAB_PKG_DIR}/io.github.poslab.PosLab.metainfo.xml @ONLY)
install(FILES ${POSLAB_PKG_DIR}/io.github.poslab.PosLab.metainfo.xml
        DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo)
install(FILES ${PROJECT_SOURCE_DIR}/packaging/copyright DESTINATION ${CMAKE_INSTALL_DOCDIR})

# Debian wants the changelog and man pages compressed with gzip -9n (no timestamp).
find_program(GZIP_EXECUTABLE gzip REQUIRED)
configure_file(${PROJECT_SOURCE_DIR}/packaging/changelog.Debian.in
               ${POSLAB_PKG_DIR}/changelog.Debian @ONLY)
add_custom_command(
  OUTPUT ${POSLAB_PKG_DIR}/changelog.Debian.gz
  COMMAND ${GZIP_EXECUTABLE} -9nf -k ${POSLAB_PKG_DIR}/changelog.Debian
  DEPENDS ${POSLAB_PKG_DIR}/changelog.Debian
  VERBATIM)
set(_poslab_pkg_outputs ${POSLAB_PKG_DIR}/changelog.Debian.gz)
install(FILES ${POSLAB_PKG_DIR}/changelog.Debian.gz DESTINATION ${CMAKE_INSTALL_DOCDIR})

# Man pages from each program's --help (Debian's help2man, through packaging/man_page.py),
# so they never drift from it: poslab-cli's page has every subcommand's options; poslab's
# leaves out the test-only options; examples, exit status, environment and files come from
# packaging/<program>.h2m.
find_program(HELP2MAN_EXECUTABLE help2man)
find_program(PYTHON3_EXECUTABLE python3)
if(HELP2MAN_EXECUTABLE AND PYTHON3_EXECUTABLE)
  set(_poslab_man_targets poslab-cli)
  set(_poslab_man_poslab-cli "command-line computations of PosLab's labs as JSON")
  if(POSLAB_BUILD_APP)
    list(APPEND _poslab_man_targets poslab)
    set(_poslab_man_poslab "see why position encodings in transformers work")
  endif()
  foreach(prog IN LISTS _poslab_man_targets)
    set(page ${POSLAB_PKG_DIR}/${prog}.1)
    add_custom_command(
      OUTPUT ${page}.gz
      COMMAND ${PYTHON3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/packaging/man_page.py
              $<TARGET_FILE:${prog}> ${PROJECT_SOURCE_DIR}/packaging/${prog}.h2m
              ${_poslab_man_${prog}} ${page}
      COMMAND ${GZIP_EXECUTABLE} -9nf ${page}
      DEPENDS ${prog} ${PROJECT_SOURCE_DIR}/packaging/man_page.py
              ${PROJECT_SOURCE_DIR}/packaging/${prog}.h2m
      COMMENT "Man page of ${prog} (help2man)"
      VERBATIM)
    list(APPEND _poslab_pkg_outputs ${page}.gz)
    install(FILES ${page}.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
  endforeach()
else()
  message(WARNING "help2man or python3 not found: no man pages are built or installed "
                  "(apt-get install help2man)")
endif()
add_custom_target(poslab_package_files ALL DEPENDS ${_poslab_pkg_outputs})

# ---- CPack: a .deb (dependencies from dpkg-shlibdeps) and a relocatable tarball --------
set(CPACK_PACKAGE_NAME poslab)
set(CPACK_PACKAGE_VENDOR "The PosLab authors")
set(CPACK_PACKAGE_CONTACT "The PosLab authors <maintainers@users.noreply.a-seed-3e0974a7.example>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "See why position encodings in transformers work")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # poslab_0.1.0-1_amd64.deb
set(CPACK_DEBIAN_PACKAGE_RELEASE ${POSLAB_DEBIAN_REVISION})
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)  # libglfw3, libhdf5, libwebp, ... (needs dpkg-dev)
# Not linked, so not found by dpkg-shlibdeps: the fonts the app draws with and Mesa's
# drivers (software OpenGL where no GPU driver is installed).
set(CPACK_DEBIAN_PACKAGE_DEPENDS "fonts-dejavu-core, fonts-wqy-microhei, libgl1-mesa-dri")
set(CPACK_PACKAGE_DESCRIPTION
    "PosLab is a desktop lab for position encodings in transformers (RoPE, ALiBi,
learned and sinusoidal positions, KV caches, a world model) whose labs run the
real computation and draw it, with lessons and quizzes in English and Chinese.
poslab-cli prints every number the labs show as JSON.")
# Built-Using: eigen3 at the version compiled in (cmake/poslab_deb_fields.cmake says why).
execute_process(COMMAND dpkg-query -W "-f=\${source:Package} (= \${source:Version})" libeigen3-dev
                OUTPUT_VARIABLE CPACK_POSLAB_BUILT_USING ERROR_QUIET)
set(CPACK_POST_BUILD_SCRIPTS ${PROJECT_SOURCE_DIR}/cmake/poslab_deb_fields.cmake)
set(CPACK_GENERATOR "DEB;TGZ")
include(CPack)
