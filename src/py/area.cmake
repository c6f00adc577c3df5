# libopscope.so: the core (model, readers, analyses, exports) as a shared library with the
# Python package's entry points (src/py, python/opscope). The whole core archive goes in, so
# every function of include/opscope.h is there; hidden visibility and exports.map keep the
# exports to that API and opscope_py.h's. Versioned soname: libopscope.so.MAJOR.
file(GLOB OPSCOPE_PY_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.c)
add_library(opscope_shared SHARED ${OPSCOPE_PY_SOURCES})
target_compile_definitions(opscope_shared PRIVATE _GNU_SOURCE)
set_target_properties(opscope_shared PROPERTIES
  OUTPUT_NAME opscope
  C_VISIBILITY_PRESET hidden
  VERSION ${PROJECT_VERSION}
  SOVERSION ${PROJECT_VERSION_MAJOR}
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib
  LINK_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/exports.map)
target_link_libraries(opscope_shared PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,opscope_core>")
target_link_options(opscope_shared PRIVATE
  -Wl,--version-script=${CMAKE_CURRENT_LIST_DIR}/exports.map -Wl,--no-undefined)

# Installed beside the other libraries, and the package under Python's path (Debian's
# dist-packages for a /usr prefix), with the library's path relative to the module written
# at install time: an installed tree stays relocatable, as the CLI's.
include(GNUInstallDirs)
set(OPSCOPE_PYTHON_DIR lib/python3/dist-packages CACHE STRING
    "where `cmake --install` puts the Python package, relative to the prefix")
install(TARGETS opscope_shared LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} NAMELINK_SKIP)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/python/opscope DESTINATION ${OPSCOPE_PYTHON_DIR}
        FILES_MATCHING PATTERN "*.py" PATTERN "__pycache__" EXCLUDE)
file(RELATIVE_PATH _opscope_py_to_lib ${CMAKE_INSTALL_PREFIX}/${OPSCOPE_PYTHON_DIR}/opscope
     ${CMAKE_INSTALL_FULL_LIBDIR})
install(CODE "
  set(_dst \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${OPSCOPE_PYTHON_DIR}/opscope/_installed.py\")
  message(STATUS \"Installing: \${_dst}\")
  file(WRITE \"\${_dst}\" \"# written by cmake --install: the library's folder from this one\\nLIBDIR = '${_opscope_py_to_lib}'\\nSONAME = 'libopscope.so.${PROJECT_VERSION_MAJOR}'\\n\")
  list(APPEND CMAKE_INSTALL_MANIFEST_FILES \"\${_dst}\")")
