# Installation (cmake --install). FHS layout under
# the prefix; the data folder mirrors the source tree, so io/data/data_dir.cpp finds it as
# ../share/poslab beside the executables wherever the tree is unpacked:
#   bin/poslab, bin/poslab-cli
#   share/poslab/lessons/, share/poslab/assets/i18n/, share/poslab/assets/models/
#   share/applications/poslab.desktop (poslab: links), share/icons/hicolor/scalable/apps/poslab.svg
#   share/metainfo/io.github.poslab.PosLab.metainfo.xml, share/man/man1/poslab{,-cli}.1.gz
include(GNUInstallDirs)
set(POSLAB_PKG_DIR ${PROJECT_BINARY_DIR}/packaging)
file(MAKE_DIRECTORY ${POSLAB_PKG_DIR})

install(DIRECTORY ${PROJECT_SOURCE_DIR}/lessons DESTINATION ${CMAKE_INSTALL_DATADIR}/poslab)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/assets/i18n ${PROJECT_SOURCE_DIR}/assets/models
        DESTINATION ${CMAKE_INSTALL_DATADIR}/poslab/assets)
install(FILES ${PROJECT_SOURCE_DIR}/packaging/poslab.desktop
        DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
install(FILES ${PROJECT_SOURCE_DIR}/packaging/poslab.svg
        DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
configure_file(${PROJECT_SOURCE_DIR}/packaging/io.github.poslab.PosLab.metainfo.xml
               ${POSLAB_PKG_DIR}/io.github.poslab.PosLab.metainfo.xml @ONLY)
install(FILES ${POSLAB_PKG_DIR}/io.github.poslab.PosLab.metainfo.xml
        DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo)

# Debian wants man pages compressed with gzip -9n (no timestamp).
find_program(GZIP_EXECUTABLE gzip REQUIRED)
set(_poslab_pkg_outputs)
# Man pages from each program's --help (Debian's help2man), so they never drift from it.
find_program(HELP2MAN_EXECUTABLE help2man)
if(HELP2MAN_EXECUTABLE)
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
      COMMAND ${HELP2MAN_EXECUTABLE} --no-info --version-string=${PROJECT_VERSION}
              --name=${_poslab_man_${prog}} --output=${page} $<TARGET_FILE:${prog}>
      COMMAND ${GZIP_EXECUTABLE} -9nf ${page}
      DEPENDS ${prog}
      COMMENT "Man page of ${prog} (help2man)"
      VERBATIM)
    list(APPEND _poslab_pkg_outputs ${page}.gz)
    install(FILES ${page}.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
  endforeach()
else()
  message(WARNING "help2man not found: no man pages are built or installed "
                  "(apt-get install help2man)")
endif()
add_custom_target(poslab_package_files ALL DEPENDS ${_poslab_pkg_outputs})
