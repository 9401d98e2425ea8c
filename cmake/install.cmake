# SPDX-License-Identifier: GPL-2.0-or-later
# cmake --install: what a user of ubscope gets (docs/library.md, README "Install").
#   bin/                           ubdump ubgen ubreplay ubpeer (libubparse linked statically)
#   lib/libubparse.so.0 (+ .so, .a) shared (SONAME libubparse.so.<major>) and static library
#   include/ubparse/*.h            the public headers (not ublua.h: the Lua bindings are not installed)
#   lib/pkgconfig/libubparse.pc    pkg-config --cflags --libs libubparse  (--static for the archive)
#   lib/cmake/ubparse/             find_package(ubparse) -> ubparse::ubparse (shared), ubparse::ubparse_static
#   share/man/man1/                ubdump.1 ubgen.1 ubreplay.1 ubpeer.1 (from docs/man/*.1.md)
#   share/bash-completion/completions/  ubdump ubgen ubreplay ubpeer
#   share/ubscope/lua/             the Lua examples;  share/doc/ubscope/  README, LICENSE, docs/*.md
include(CMakePackageConfigHelpers)

# ---- the shared library: libubparse.so -> libubparse.so.0 -> libubparse.so.0.1.0
set_target_properties(ubparse_shared PROPERTIES
  OUTPUT_NAME ubparse
  EXPORT_NAME ubparse
  VERSION ${PROJECT_VERSION}
  SOVERSION ${PROJECT_VERSION_MAJOR})
set_target_properties(ubparse PROPERTIES EXPORT_NAME ubparse_static)
# Exported symbols: the ub_* API (tool-internal helpers such as rn_*, rw_*, peer_* stay local).
set(_ub_map ${CMAKE_SOURCE_DIR}/libubparse/pkg/libubparse.map)
target_link_options(ubparse_shared PRIVATE "LINKER:--version-script=${_ub_map}")
if(NOT UB_SANITIZE) # clang links the sanitizer runtime into executables only: its symbols stay undefined here
  target_link_options(ubparse_shared PRIVATE "LINKER:--no-undefined")
endif()
set_property(TARGET ubparse_shared APPEND PROPERTY LINK_DEPENDS ${_ub_map})

install(TARGETS ubparse_shared ubparse EXPORT ubparseTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
file(GLOB UB_PUBLIC_HEADERS ${CMAKE_SOURCE_DIR}/libubparse/include/ubparse/*.h)
list(FILTER UB_PUBLIC_HEADERS EXCLUDE REGEX "/ublua\\.h$")
install(FILES ${UB_PUBLIC_HEADERS} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/ubparse)

# ---- pkg-config (relocatable: paths relative to the .pc file, so `cmake --install --prefix P` works)
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(UB_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
else()
  file(RELATIVE_PATH _rel "/P/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/P")
  string(REGEX REPLACE "/$" "" _rel "${_rel}")
  set(UB_PC_PREFIX "\${pcfiledir}/${_rel}")
endif()
foreach(_d LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${_d}}")
    set(UB_PC_${_d} "${CMAKE_INSTALL_${_d}}")
  else()
    set(UB_PC_${_d} "\${prefix}/${CMAKE_INSTALL_${_d}}")
  endif()
endforeach()
configure_file(${CMAKE_SOURCE_DIR}/libubparse/pkg/libubparse.pc.in ${CMAKE_BINARY_DIR}/libubparse.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/libubparse.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# ---- CMake package: find_package(ubparse [0.1]) -> ubparse::ubparse
set(_ub_cmakedir ${CMAKE_INSTALL_LIBDIR}/cmake/ubparse)
install(EXPORT ubparseTargets NAMESPACE ubparse:: DESTINATION ${_ub_cmakedir})
configure_package_config_file(${CMAKE_SOURCE_DIR}/libubparse/pkg/ubparseConfig.cmake.in
  ${CMAKE_BINARY_DIR}/ubparseConfig.cmake INSTALL_DESTINATION ${_ub_cmakedir})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/ubparseConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/ubparseConfig.cmake ${CMAKE_BINARY_DIR}/ubparseConfigVersion.cmake
  DESTINATION ${_ub_cmakedir})

# ---- man pages: docs/man/TOOL.1.md -> build/man/TOOL.1 (scripts/md2man.sh, awk; no pandoc needed);
#      the OPTIONS section is the built tool's --help, so the two never disagree
set(UB_MAN_PAGES ubdump ubgen ubreplay ubpeer)
set(_ub_man_out)
foreach(_m ${UB_MAN_PAGES})
  set(_src ${CMAKE_SOURCE_DIR}/docs/man/${_m}.1.md)
  set(_out ${CMAKE_BINARY_DIR}/man/${_m}.1)
  add_custom_command(OUTPUT ${_out}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/man
    COMMAND sh ${CMAKE_SOURCE_DIR}/scripts/md2man.sh ${_src} ${PROJECT_VERSION} $<TARGET_FILE:${_m}> > ${_out}
    DEPENDS ${_src} ${CMAKE_SOURCE_DIR}/scripts/md2man.sh ${_m}
    COMMENT "man page ${_m}.1" VERBATIM)
  list(APPEND _ub_man_out ${_out})
endforeach()
add_custom_target(man ALL DEPENDS ${_ub_man_out})
install(FILES ${_ub_man_out} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)

# ---- bash completion: one script, loaded on demand under each command's name
foreach(_c ubdump ubgen ubreplay ubpeer)
  install(FILES ${CMAKE_SOURCE_DIR}/scripts/completion/ubscope.bash
          DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME ${_c})
endforeach()

# ---- Lua examples and documentation
file(GLOB _ub_lua ${CMAKE_SOURCE_DIR}/lua/*.lua)
install(FILES ${_ub_lua} DESTINATION ${CMAKE_INSTALL_DATADIR}/ubscope/lua)
file(GLOB _ub_docs ${CMAKE_SOURCE_DIR}/docs/*.md ${CMAKE_SOURCE_DIR}/docs/*.png)
install(FILES ${CMAKE_SOURCE_DIR}/README.md ${CMAKE_SOURCE_DIR}/LICENSE ${_ub_docs}
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
