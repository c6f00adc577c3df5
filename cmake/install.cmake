# Install rules: `cmake --install BUILD [--prefix P]`, `make install PREFIX=P` and the Debian
# package (cmake/package.cmake). An installed tree is relocatable: the CLI finds the capture
# library at its path relative to the CLI, the pkg-config files start from ${pcfiledir}, the
# CMake package file from its own folder. Only the link-flag files name the prefix, written
# when installing (they are plain flags for any build system). Layout: docs/install.md.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(_libdir ${CMAKE_INSTALL_LIBDIR})
set(_gen ${CMAKE_BINARY_DIR}/install-files)
file(RELATIVE_PATH _bin_to_lib ${CMAKE_INSTALL_FULL_BINDIR} ${CMAKE_INSTALL_FULL_LIBDIR})
file(RELATIVE_PATH _pc_to_prefix ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
file(RELATIVE_PATH _cmake_to_prefix ${CMAKE_INSTALL_FULL_LIBDIR}/cmake/opscope ${CMAKE_INSTALL_PREFIX})
set(_layer_dir ${CMAKE_INSTALL_DATADIR}/vulkan/explicit_layer.d)
file(RELATIVE_PATH _layers_to_lib ${CMAKE_INSTALL_FULL_DATADIR}/vulkan/explicit_layer.d ${CMAKE_INSTALL_FULL_LIBDIR})
file(RELATIVE_PATH _layers_from_lib ${CMAKE_INSTALL_FULL_LIBDIR} ${CMAKE_INSTALL_FULL_DATADIR}/vulkan/explicit_layer.d)

# ---- the CLI: `opscope record` looks for the capture library at ../<libdir> from itself
install(TARGETS opscope RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
target_compile_definitions(opscope PRIVATE OPSCOPE_REL_LIBDIR="${_bin_to_lib}")

# ---- opscope.h: the record model, readers and profile API, in libopscope.a
set_target_properties(opscope_core PROPERTIES OUTPUT_NAME opscope)
install(TARGETS opscope_core ARCHIVE DESTINATION ${_libdir})
install(FILES ${CMAKE_SOURCE_DIR}/include/opscope.h ${CMAKE_SOURCE_DIR}/include/ggml-profiler.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

set(_pc_head "prefix=\${pcfiledir}/${_pc_to_prefix}
libdir=\${prefix}/${_libdir}
includedir=\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}
")
file(WRITE ${_gen}/opscope.pc "${_pc_head}
Name: opscope
Description: opscope's profile model, readers (ggml profiles, Kineto and Chrome traces) and metrics (opscope.h)
Version: ${PROJECT_VERSION}
Cflags: -I\${includedir}
Libs: -L\${libdir} -lopscope
Libs.private: -lz -lm
")
set(_pc_files ${_gen}/opscope.pc)

# ---- the capture libraries (built where ggml's headers are found)
if(TARGET opscope-ggml)
  install(TARGETS opscope-ggml LIBRARY DESTINATION ${_libdir})
  # where the installed library finds the Vulkan layer's manifest (src/capture/gpu/cap_gpu.c)
  target_compile_definitions(opscope-ggml PRIVATE OPSCOPE_LIB_TO_LAYERDIR="${_layers_from_lib}")
  file(WRITE ${_gen}/opscope-ggml.pc "${_pc_head}
Name: opscope-ggml
Description: opscope's ggml profiler (ggml-profiler.h): LD_PRELOAD or link it into a ggml program
Version: ${PROJECT_VERSION}
Cflags: -I\${includedir}
Libs: -L\${libdir} -lopscope-ggml
")
  list(APPEND _pc_files ${_gen}/opscope-ggml.pc)

  get_property(_wrap GLOBAL PROPERTY OPSCOPE_STATIC_WRAP_FLAGS)
  install(FILES ${CMAKE_BINARY_DIR}/lib/libopscope-ggml-static.a DESTINATION ${_libdir})
  file(WRITE ${_gen}/opscope-ggml-static.pc "${_pc_head}
Name: opscope-ggml-static
Description: opscope's ggml profiler (ggml-profiler.h) for programs linked with a static ggml; list ggml after it
Version: ${PROJECT_VERSION}
Cflags: -I\${includedir}
Libs: ${_wrap} -L\${libdir} -lopscope-ggml-static -lz -lm -lpthread
")
  list(APPEND _pc_files ${_gen}/opscope-ggml-static.pc)
  # The plain flag lines name the installed libdir, known only when installing.
  install(CODE "
    set(_l \"\${CMAKE_INSTALL_PREFIX}/${_libdir}\")
    set(_f \"${_wrap} -L\${_l} -lopscope-ggml-static -lz -lm -lpthread\")
    string(REPLACE \"-Wl,\" \"-Wl,--wrap=GOMP_barrier,-u,__wrap_GOMP_barrier,\" _omp \"\${_f}\")
    foreach(_n opscope-ggml-static.ldflags:_f opscope-ggml-static-openmp.ldflags:_omp)
      string(REPLACE \":\" \";\" _p \"\${_n}\")
      list(GET _p 0 _file)
      list(GET _p 1 _var)
      set(_dst \"\$ENV{DESTDIR}\${_l}/\${_file}\")
      message(STATUS \"Installing: \${_dst}\")
      file(WRITE \"\${_dst}\" \"\${\${_var}}\\n\")
      list(APPEND CMAKE_INSTALL_MANIFEST_FILES \"\${_dst}\")
    endforeach()")
endif()

# ---- the Vulkan layer (when its target exists) and its manifest (src/vklayer writes it to
# lib/opscope-vklayer.json; a target property OPSCOPE_LAYER_MANIFEST may name another). It is
# an explicit layer in share/vulkan/explicit_layer.d: the capture library enables it for the
# programs it profiles. The installed copy's library_path is rewritten to the installed
# library, relative to the manifest (the Vulkan loader resolves it so): the tree stays
# relocatable.
if(TARGET opscope-vklayer)
  install(TARGETS opscope-vklayer LIBRARY DESTINATION ${_libdir})
  get_target_property(_manifest opscope-vklayer OPSCOPE_LAYER_MANIFEST)
  if(NOT _manifest AND EXISTS ${CMAKE_BINARY_DIR}/lib/opscope-vklayer.json)
    set(_manifest ${CMAKE_BINARY_DIR}/lib/opscope-vklayer.json)
  endif()
  if(_manifest)
    get_filename_component(_mname ${_manifest} NAME)
    install(CODE "
      file(READ \"${_manifest}\" _m)
      string(REGEX REPLACE \"\\\"library_path\\\"[ \\t]*:[ \\t]*\\\"[^\\\"]*\\\"\"
             \"\\\"library_path\\\": \\\"${_layers_to_lib}/$<TARGET_FILE_NAME:opscope-vklayer>\\\"\" _m \"\${_m}\")
      set(_dst \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${_layer_dir}/${_mname}\")
      message(STATUS \"Installing: \${_dst}\")
      file(WRITE \"\${_dst}\" \"\${_m}\")
      list(APPEND CMAKE_INSTALL_MANIFEST_FILES \"\${_dst}\")")
  else()
    message(WARNING "opscope-vklayer: no manifest found; it will not be installed")
  endif()
endif()

install(FILES ${_pc_files} DESTINATION ${_libdir}/pkgconfig)

# ---- CMake package: find_package(opscope) gives opscope::opscope, opscope::ggml and
# opscope::ggml_static (the latter two where installed)
get_property(_wrap GLOBAL PROPERTY OPSCOPE_STATIC_WRAP_FLAGS)
string(REPLACE ",--wrap=" ";-Wl,--wrap=" _wrap_list "${_wrap}")
list(REMOVE_ITEM _wrap_list "-Wl")
file(WRITE ${_gen}/opscope-config.cmake "# opscope's CMake package (generated; docs: docs/install.md).
get_filename_component(_opscope_prefix \"\${CMAKE_CURRENT_LIST_DIR}/${_cmake_to_prefix}\" ABSOLUTE)
set(_opscope_lib \"\${_opscope_prefix}/${_libdir}\")
set(_opscope_inc \"\${_opscope_prefix}/${CMAKE_INSTALL_INCLUDEDIR}\")
if(NOT TARGET opscope::opscope)
  add_library(opscope::opscope STATIC IMPORTED)
  set_target_properties(opscope::opscope PROPERTIES
    IMPORTED_LOCATION \"\${_opscope_lib}/libopscope.a\"
    INTERFACE_INCLUDE_DIRECTORIES \"\${_opscope_inc}\"
    INTERFACE_LINK_LIBRARIES \"z;m\")
endif()
if(NOT TARGET opscope::ggml AND EXISTS \"\${_opscope_lib}/libopscope-ggml.so\")
  add_library(opscope::ggml SHARED IMPORTED)
  set_target_properties(opscope::ggml PROPERTIES
    IMPORTED_LOCATION \"\${_opscope_lib}/libopscope-ggml.so\"
    IMPORTED_NO_SONAME TRUE
    INTERFACE_INCLUDE_DIRECTORIES \"\${_opscope_inc}\")
endif()
if(NOT TARGET opscope::ggml_static AND EXISTS \"\${_opscope_lib}/libopscope-ggml-static.a\")
  include(CMakeFindDependencyMacro)
  find_dependency(Threads)
  add_library(opscope::ggml_static STATIC IMPORTED)
  set_target_properties(opscope::ggml_static PROPERTIES
    IMPORTED_LOCATION \"\${_opscope_lib}/libopscope-ggml-static.a\"
    INTERFACE_INCLUDE_DIRECTORIES \"\${_opscope_inc}\"
    INTERFACE_LINK_OPTIONS \"${_wrap_list}\"
    INTERFACE_LINK_LIBRARIES \"z;m;Threads::Threads\")
endif()
unset(_opscope_prefix)
unset(_opscope_lib)
unset(_opscope_inc)
")
write_basic_package_version_file(${_gen}/opscope-config-version.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${_gen}/opscope-config.cmake ${_gen}/opscope-config-version.cmake
        DESTINATION ${_libdir}/cmake/opscope)

# ---- documentation and man pages (help2man from each command's --help)
install(FILES ${CMAKE_SOURCE_DIR}/README.md ${CMAKE_SOURCE_DIR}/ARCHITECTURE.md
              ${CMAKE_SOURCE_DIR}/LICENSE
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
# The licence again as Debian wants it in every package (share/doc/PACKAGE/copyright,
# machine-readable format 1.0; "Expat" is Debian's name for the MIT licence), made from
# LICENSE so the two cannot drift apart.
file(READ ${CMAKE_SOURCE_DIR}/LICENSE _license)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/LICENSE)
string(REGEX REPLACE "^MIT License\n\nCopyright \\(c\\) ([^\n]*)\n\n" "" _license_body "${_license}")
string(REGEX MATCH "Copyright \\(c\\) ([^\n]*)" _ "${_license}")
set(_holder "${CMAKE_MATCH_1}")
string(REGEX REPLACE "\n+$" "" _license_body "${_license_body}")
string(REPLACE "\n\n" "\n.\n" _license_body "${_license_body}")
string(REPLACE "\n" "\n " _license_body "${_license_body}")
file(WRITE ${_gen}/copyright "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: opscope

Files: *
Copyright: ${_holder}
License: Expat
 ${_license_body}
")
install(FILES ${_gen}/copyright DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR})

find_program(OPSCOPE_HELP2MAN help2man)
find_program(OPSCOPE_GZIP gzip)
if(OPSCOPE_HELP2MAN AND OPSCOPE_GZIP)
  set(_man_pages "")
  foreach(_cmd opscope "opscope report" "opscope record" "opscope view" "opscope replay" "opscope merge" "opscope top"
          "opscope ctl")
    string(REPLACE " " "-" _page "${_cmd}")
    string(TOUPPER "${_page}" _title)
    if(_cmd STREQUAL "opscope")
      set(_what "cross-backend operator profiler for ggml programs")
      set(_run "$<TARGET_FILE:opscope>")
    else()
      string(REPLACE "opscope " "" _sub "${_cmd}")
      set(_run "$<TARGET_FILE:opscope> ${_sub}")
      if(_sub STREQUAL "report")
        set(_what "summarise and export a ggml profile or a PyTorch/Chrome trace")
      elseif(_sub STREQUAL "record")
        set(_what "profile a ggml program")
      elseif(_sub STREQUAL "replay")
        set(_what "re-run a profile's graph ops in isolation with test-backend-ops")
      elseif(_sub STREQUAL "merge")
        set(_what "put the profiles of a ggml RPC client and its servers on one timeline")
      elseif(_sub STREQUAL "top")
        set(_what "a live view of a running capture")
      elseif(_sub STREQUAL "ctl")
        set(_what "start, stop and mark a running capture's windows")
      else()
        set(_what "write the HTML timeline of a profile")
      endif()
    endif()
    set(_out ${CMAKE_BINARY_DIR}/man/${_page}.1.gz)
    add_custom_command(OUTPUT ${_out}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/man
      COMMAND ${OPSCOPE_HELP2MAN} --no-info --version-string=${PROJECT_VERSION} -n "${_what}"
              -o ${CMAKE_BINARY_DIR}/man/${_page}.1 "${_run}"
      # help2man titles a subcommand's page after the program: name it after the page
      COMMAND sed -i "s/^\\.TH OPSCOPE /.TH ${_title} /" ${CMAKE_BINARY_DIR}/man/${_page}.1
      COMMAND ${OPSCOPE_GZIP} -9nf ${CMAKE_BINARY_DIR}/man/${_page}.1
      DEPENDS opscope VERBATIM)
    list(APPEND _man_pages ${_out})
  endforeach()
  add_custom_target(opscope-man ALL DEPENDS ${_man_pages})
  install(FILES ${_man_pages} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
else()
  message(STATUS "opscope: help2man not found; man pages are not built (scripts/install-deps.sh installs it)")
endif()
