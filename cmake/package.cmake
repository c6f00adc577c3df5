# The Debian package (CPack, DEB): `make deb`, or in a build configured with
# -DCMAKE_INSTALL_PREFIX=/usr (Debian's multiarch libdir), `cpack -G DEB`. It holds what
# cmake/install.cmake installs; the capture library is in it where ggml's headers were found
# (Debian forky: libggml-dev). Dependencies come from dpkg-shlibdeps (dpkg-dev).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME opscope)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_RESOURCE_FILE_LICENSE ${CMAKE_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGE_VENDOR opscope)
set(CPACK_PACKAGE_CONTACT "opscope developers <opscope@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "cross-backend operator profiler for ggml programs")
set(CPACK_PACKAGE_DESCRIPTION "opscope records per-op timing, shapes, bytes and FLOPs and every copy
between backends from unmodified ggml programs (llama.cpp, whisper.cpp...) through a
preload library, and reports them as text, JSON, Chrome traces, an HTML timeline or an
SQLite database. It also reads PyTorch (Kineto) and Chrome traces.")
set(CPACK_PACKAGING_INSTALL_PREFIX ${CMAKE_INSTALL_PREFIX})
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# libopscope.so.0 (src/py/area.cmake): a shlibs file and the ldconfig trigger. The Python
# package beside it (dist-packages/opscope) needs numpy and pandas, Debian's own.
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
file(WRITE ${CMAKE_BINARY_DIR}/install-files/triggers "activate-noawait ldconfig\n")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA ${CMAKE_BINARY_DIR}/install-files/triggers)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "python3, python3-numpy, python3-pandas")
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "")
set(CPACK_STRIP_FILES OFF)
set(CPACK_OUTPUT_FILE_PREFIX ${CMAKE_BINARY_DIR}/packages)
if(NOT TARGET opscope-ggml)
  message(STATUS "opscope: the package will have no capture library (ggml headers not found)")
endif()
include(CPack)
