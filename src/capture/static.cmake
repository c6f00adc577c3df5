# libopscope-ggml-static.a: the capture for programs linked with a static ggml, where nothing
# can be interposed (see cap_static.c and docs/capture.md "Static ggml"). The program's own
# calls into ggml are wrapped at link time with the flags in lib/opscope-ggml-static.ldflags
# (also lib/pkgconfig/opscope-ggml-static.pc); the archive holds every object it needs
# (capture, core, viewer), so a program links it alone plus zlib, libm and pthreads.
# Included by area.cmake where ggml's headers were found.

# The calls the program's link wraps: cap_static.c defines their __wrap_ functions (cap_copy.c
# compiled with its entry points renamed for the tensor copies), cap_static_sym.c takes the
# originals as __real_. Keep the three in step: a missing flag fails the link.
set(OPSCOPE_STATIC_WRAPS
  ggml_backend_sched_graph_compute ggml_backend_sched_graph_compute_async
  ggml_backend_sched_free ggml_backend_sched_reset ggml_backend_sched_alloc_graph ggml_backend_free
  ggml_backend_sched_reserve ggml_backend_sched_set_eval_callback
  ggml_backend_reg_get_proc_address ggml_backend_graph_compute ggml_backend_graph_compute_async
  ggml_backend_cpu_set_abort_callback
  ggml_backend_tensor_copy ggml_backend_tensor_set ggml_backend_tensor_get
  ggml_backend_tensor_set_async ggml_backend_tensor_get_async
  ggml_backend_tensor_set_2d ggml_backend_tensor_get_2d
  ggml_backend_tensor_set_2d_async ggml_backend_tensor_get_2d_async)
# The 2d copies are newer than some ggml: cap_static_sym.c takes their __real_ weakly, so a
# ggml without them links too (a program linked against it cannot call them anyway).
set(OPSCOPE_COPY_WRAPS ggml_backend_tensor_copy ggml_backend_tensor_set ggml_backend_tensor_get
  ggml_backend_tensor_set_async ggml_backend_tensor_get_async
  ggml_backend_tensor_set_2d ggml_backend_tensor_get_2d
  ggml_backend_tensor_set_2d_async ggml_backend_tensor_get_2d_async)

add_library(opscope_static_copy OBJECT ${OPSCOPE_CAPTURE_DIR}/hooks/cap_copy.c)
set(_renames "")
foreach(f ${OPSCOPE_COPY_WRAPS})
  list(APPEND _renames "${f}=__wrap_${f}")
endforeach()
target_compile_definitions(opscope_static_copy PRIVATE _GNU_SOURCE ${_renames})

add_library(opscope_static_part STATIC
  ${OPSCOPE_CAPTURE_DIR}/hooks/cap_static.c
  ${OPSCOPE_CAPTURE_DIR}/resolve/cap_static_sym.c
  ${OPSCOPE_CAPTURE_DIR}/hooks/cap_static_omp.c
  ${OPSCOPE_CAPTURE_COMMON_SOURCES} # area.cmake's: what the shared library builds too
  $<TARGET_OBJECTS:opscope_static_copy>)
target_compile_definitions(opscope_static_part PRIVATE _GNU_SOURCE)
if(OPSCOPE_GGML_BUILD_VERSION)
  target_compile_definitions(opscope_static_part PRIVATE OPSCOPE_GGML_BUILD_VERSION="${OPSCOPE_GGML_BUILD_VERSION}")
endif()
foreach(t opscope_static_copy opscope_static_part)
  target_include_directories(${t} PRIVATE ${OPSCOPE_GGML_INCLUDE_DIR} ${CMAKE_SOURCE_DIR}/src
                             ${CMAKE_SOURCE_DIR}/include)
  target_compile_options(${t} PRIVATE -fvisibility=hidden)
endforeach()
target_link_libraries(opscope_static_part PRIVATE opscope_capture_core opscope_gpu_map opscope_cupti)

# One archive from the part and the libraries it needs (GNU ar's MRI script).
set(_static_lib ${CMAKE_BINARY_DIR}/lib/libopscope-ggml-static.a)
set(_mri ${CMAKE_BINARY_DIR}/opscope-ggml-static.mri)
file(GENERATE OUTPUT ${_mri} CONTENT "CREATE ${_static_lib}
ADDLIB $<TARGET_FILE:opscope_static_part>
ADDLIB $<TARGET_FILE:opscope_capture_core>
ADDLIB $<TARGET_FILE:opscope_gpu_map>
ADDLIB $<TARGET_FILE:opscope_cupti>
ADDLIB $<TARGET_FILE:opscope_core>
ADDLIB $<TARGET_FILE:opscope_viewer_embed>
SAVE
END
")
add_custom_command(OUTPUT ${_static_lib}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/lib
  COMMAND ${CMAKE_COMMAND} -E remove -f ${_static_lib}
  COMMAND sh -c "exec \"$1\" -M < \"$2\"" sh ${CMAKE_AR} ${_mri}
  DEPENDS opscope_static_part opscope_capture_core opscope_gpu_map opscope_cupti opscope_core opscope_viewer_embed ${_mri}
  COMMENT "Merging libopscope-ggml-static.a" VERBATIM)
add_custom_target(opscope-ggml-static ALL DEPENDS ${_static_lib})

# The link flags, as a plain line (for any build system) and as a pkg-config file.
set(_wrap "")
foreach(f ${OPSCOPE_STATIC_WRAPS})
  string(APPEND _wrap ",--wrap=${f}")
endforeach()
set(OPSCOPE_STATIC_LDFLAGS "-Wl${_wrap} -L${CMAKE_BINARY_DIR}/lib -lopscope-ggml-static -lz -lm -lpthread")
file(WRITE ${CMAKE_BINARY_DIR}/lib/opscope-ggml-static.ldflags "${OPSCOPE_STATIC_LDFLAGS}\n")
# cmake/install.cmake writes the installed copies of these flags (with the installed libdir).
set_property(GLOBAL PROPERTY OPSCOPE_STATIC_WRAP_FLAGS "-Wl${_wrap}")
# For a ggml-cpu built with OpenMP: its node barriers too (cap_static_omp.c); needs libgomp.
string(REPLACE "-Wl${_wrap}" "-Wl${_wrap},--wrap=GOMP_barrier,-u,__wrap_GOMP_barrier" _omp_flags
       "${OPSCOPE_STATIC_LDFLAGS}")
file(WRITE ${CMAKE_BINARY_DIR}/lib/opscope-ggml-static-openmp.ldflags "${_omp_flags}\n")
file(WRITE ${CMAKE_BINARY_DIR}/lib/pkgconfig/opscope-ggml-static.pc
"libdir=${CMAKE_BINARY_DIR}/lib
includedir=${CMAKE_SOURCE_DIR}/include

Name: opscope-ggml-static
Description: opscope's ggml profiler (ggml-profiler.h) for programs linked with a static ggml; list ggml after it
Version: ${PROJECT_VERSION}
Cflags: -I\${includedir}
Libs: -Wl${_wrap} -L\${libdir} -lopscope-ggml-static -lz -lm -lpthread
")
# ... and for CMake projects: include() it, then target_link_libraries(app PRIVATE
# opscope::ggml_static ggml) (ggml after it).
string(REPLACE ",--wrap=" ";-Wl,--wrap=" _wrap_list "-Wl${_wrap}")
list(REMOVE_ITEM _wrap_list "-Wl")
file(WRITE ${CMAKE_BINARY_DIR}/lib/cmake/opscope-ggml-static.cmake
"# Generated by opscope: the static-ggml capture (docs/capture.md, \"Static ggml\").
if(NOT TARGET opscope::ggml_static)
  find_package(Threads REQUIRED)
  add_library(opscope::ggml_static STATIC IMPORTED)
  set_target_properties(opscope::ggml_static PROPERTIES
    IMPORTED_LOCATION \"${_static_lib}\"
    INTERFACE_INCLUDE_DIRECTORIES \"${CMAKE_SOURCE_DIR}/include\"
    INTERFACE_LINK_OPTIONS \"${_wrap_list}\"
    INTERFACE_LINK_LIBRARIES \"z;m;Threads::Threads\")
endif()
")
message(STATUS "opscope: libopscope-ggml-static.a enabled (link flags in lib/opscope-ggml-static.ldflags, lib/cmake/opscope-ggml-static.cmake)")
