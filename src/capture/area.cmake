# The capture library (src/capture). The ggml-free part (clock, record buffers, attribution,
# state, export) is always built as opscope_capture_core so its unit tests run on any host.
# libopscope-ggml.so (the LD_PRELOAD / link-time library) is built only where ggml's public
# headers are found (the forky test root, or a system with libggml-dev); elsewhere it is
# skipped with a message, and nothing else depends on it.
set(OPSCOPE_CAPTURE_DIR ${CMAKE_CURRENT_LIST_DIR})

add_library(opscope_capture_core STATIC
  ${OPSCOPE_CAPTURE_DIR}/store/cap_clock.c
  ${OPSCOPE_CAPTURE_DIR}/store/cap_buf.c
  ${OPSCOPE_CAPTURE_DIR}/timing/cap_attr.c
  ${OPSCOPE_CAPTURE_DIR}/timing/cap_threads.c
  ${OPSCOPE_CAPTURE_DIR}/life/cap_config.c
  ${OPSCOPE_CAPTURE_DIR}/life/cap_env.c
  ${OPSCOPE_CAPTURE_DIR}/store/cap_tables.c
  ${OPSCOPE_CAPTURE_DIR}/store/cap_counters.c
  ${OPSCOPE_CAPTURE_DIR}/store/cap_convert.c
  ${OPSCOPE_CAPTURE_DIR}/store/cap_drops.c
  ${OPSCOPE_CAPTURE_DIR}/store/cap_replay.c
  ${OPSCOPE_CAPTURE_DIR}/store/cap_log.c
  ${OPSCOPE_CAPTURE_DIR}/store/cap_window.c
  ${OPSCOPE_CAPTURE_DIR}/store/cap_heap.c
  ${OPSCOPE_CAPTURE_DIR}/life/cap_write.c
  ${OPSCOPE_CAPTURE_DIR}/store/cap_meta.c
  ${OPSCOPE_CAPTURE_DIR}/store/cap_run.c
  ${OPSCOPE_CAPTURE_DIR}/store/cap_gguf.c
  ${OPSCOPE_CAPTURE_DIR}/store/cap_decodes.c
  ${OPSCOPE_CAPTURE_DIR}/life/cap_ctl.c
  ${OPSCOPE_CAPTURE_DIR}/life/cap_life.c)
target_compile_definitions(opscope_capture_core PRIVATE _GNU_SOURCE)
# initial-exec TLS: the general-dynamic model would cost a __tls_get_addr call per
# thread-local access. A late dlopen then needs room in the C library's static TLS reserve,
# so thread-locals stay small (352 bytes; tests/capture_api/run-in-root.sh dlopens it).
target_compile_options(opscope_capture_core PRIVATE -fvisibility=hidden -ftls-model=initial-exec)
find_package(Threads REQUIRED)
target_link_libraries(opscope_capture_core PUBLIC opscope_core Threads::Threads)

# The backend-neutral mapping of device work to graph nodes and the choice of the computes
# that get device timing (pure: unit-tested everywhere).
add_library(opscope_gpu_map STATIC
  ${OPSCOPE_CAPTURE_DIR}/gpu/gpu_map.c
  ${OPSCOPE_CAPTURE_DIR}/gpu/gpu_rules.c
  ${OPSCOPE_CAPTURE_DIR}/gpu/gpu_sample.c)
target_include_directories(opscope_gpu_map PUBLIC ${CMAKE_SOURCE_DIR}/src)
target_compile_options(opscope_gpu_map PRIVATE -fvisibility=hidden)
set_target_properties(opscope_gpu_map PROPERTIES POSITION_INDEPENDENT_CODE ON)
target_link_libraries(opscope_gpu_map PUBLIC opscope_core) # ggml's op names (model/ggml_vocab.h)

# The CUPTI source's pure parts (record layouts by version, API roles and kernel names, the
# launch tracker): no CUDA needed, unit-tested everywhere; cap_cupti.c loads libcupti.
add_library(opscope_cupti STATIC
  ${OPSCOPE_CAPTURE_DIR}/gpu/cupti_rec.c
  ${OPSCOPE_CAPTURE_DIR}/gpu/cupti_clock.c
  ${OPSCOPE_CAPTURE_DIR}/gpu/cupti_names.c
  ${OPSCOPE_CAPTURE_DIR}/gpu/cupti_track.c)
target_include_directories(opscope_cupti PUBLIC ${CMAKE_SOURCE_DIR}/src)
target_compile_options(opscope_cupti PRIVATE -fvisibility=hidden)
target_compile_definitions(opscope_cupti PRIVATE _GNU_SOURCE)
set_target_properties(opscope_cupti PROPERTIES POSITION_INDEPENDENT_CODE ON)
find_package(Threads REQUIRED)
target_link_libraries(opscope_cupti PUBLIC Threads::Threads)

find_path(OPSCOPE_GGML_INCLUDE_DIR NAMES ggml.h ggml-backend.h)
if(OPSCOPE_GGML_INCLUDE_DIR AND EXISTS "${OPSCOPE_GGML_INCLUDE_DIR}/ggml-backend.h")
  find_program(OPSCOPE_PKG_CONFIG pkg-config)
  set(OPSCOPE_GGML_BUILD_VERSION "")
  if(OPSCOPE_PKG_CONFIG)
    execute_process(COMMAND ${OPSCOPE_PKG_CONFIG} --modversion ggml
                    OUTPUT_VARIABLE OPSCOPE_GGML_BUILD_VERSION OUTPUT_STRIP_TRAILING_WHITESPACE
                    ERROR_QUIET)
  endif()
  # What both capture libraries build (this one and static.cmake's archive): the hooks' state,
  # the symbol and device tables, the timing walk and its records, the API and the GPU sources.
  # Each adds its own way into ggml (interposed here, wrapped at link time there).
  set(OPSCOPE_CAPTURE_COMMON_SOURCES
    ${OPSCOPE_CAPTURE_DIR}/hooks/cap_hooks.c
    ${OPSCOPE_CAPTURE_DIR}/hooks/cap_tls.c
    ${OPSCOPE_CAPTURE_DIR}/hooks/cap_barrier.c
    ${OPSCOPE_CAPTURE_DIR}/resolve/cap_resolve.c
    ${OPSCOPE_CAPTURE_DIR}/resolve/cap_devices.c
    ${OPSCOPE_CAPTURE_DIR}/timing/cap_cpu.c
    ${OPSCOPE_CAPTURE_DIR}/timing/cap_walk.c
    ${OPSCOPE_CAPTURE_DIR}/timing/cap_record.c
    ${OPSCOPE_CAPTURE_DIR}/hooks/cap_api.c
    ${OPSCOPE_CAPTURE_DIR}/gpu/cap_gpu.c
    ${OPSCOPE_CAPTURE_DIR}/gpu/cap_cupti.c)
  # The objects' order keeps the constructors' (cap_blas.c, cap_omp.c, then cap_gpu.c).
  add_library(opscope-ggml SHARED
    ${OPSCOPE_CAPTURE_DIR}/resolve/cap_sym_dl.c
    ${OPSCOPE_CAPTURE_DIR}/hooks/cap_ggml.c
    ${OPSCOPE_CAPTURE_DIR}/hooks/cap_blas.c
    ${OPSCOPE_CAPTURE_DIR}/hooks/cap_omp.c
    ${OPSCOPE_CAPTURE_DIR}/hooks/cap_tpool.c
    ${OPSCOPE_CAPTURE_DIR}/hooks/cap_copy.c
    ${OPSCOPE_CAPTURE_DIR}/hooks/cap_sync.c
    ${OPSCOPE_CAPTURE_DIR}/hooks/cap_llama.c
    ${OPSCOPE_CAPTURE_DIR}/hooks/cap_decode.c
    ${OPSCOPE_CAPTURE_DIR}/hooks/cap_decode_abi.c
    ${OPSCOPE_CAPTURE_DIR}/hooks/cap_batch_ext.c
    ${OPSCOPE_CAPTURE_DIR}/store/cap_heap_wrap.c
    ${OPSCOPE_CAPTURE_COMMON_SOURCES})
  target_include_directories(opscope-ggml PRIVATE ${OPSCOPE_GGML_INCLUDE_DIR} ${CMAKE_SOURCE_DIR}/src)
  target_link_libraries(opscope-ggml PRIVATE opscope_gpu_map opscope_cupti)
  target_compile_definitions(opscope-ggml PRIVATE _GNU_SOURCE)
  if(OPSCOPE_GGML_BUILD_VERSION)
    target_compile_definitions(opscope-ggml PRIVATE OPSCOPE_GGML_BUILD_VERSION="${OPSCOPE_GGML_BUILD_VERSION}")
  endif()
  target_compile_options(opscope-ggml PRIVATE -fvisibility=hidden -ftls-model=initial-exec)
  # Only ggml_* (the interposed functions and ggml-profiler.h) leave the library; the core
  # library's symbols stay inside so nothing clashes with the host program.
  target_link_options(opscope-ggml PRIVATE
    -Wl,--version-script=${OPSCOPE_CAPTURE_DIR}/exports.map -Wl,--no-undefined -Wl,-z,now
    # the library's own heap calls: a checkpoint on the watcher thread takes pages of its own
    # (store/cap_heap.h), never a malloc arena
    -Wl,--wrap=malloc -Wl,--wrap=calloc -Wl,--wrap=realloc -Wl,--wrap=free)
  target_link_libraries(opscope-ggml PRIVATE opscope_capture_core ${CMAKE_DL_LIBS})
  set_target_properties(opscope-ggml PROPERTIES OUTPUT_NAME opscope-ggml PREFIX lib
                        LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib)
  include(${OPSCOPE_CAPTURE_DIR}/static.cmake)
  message(STATUS "opscope: capture library libopscope-ggml.so enabled (ggml ${OPSCOPE_GGML_BUILD_VERSION}, headers in ${OPSCOPE_GGML_INCLUDE_DIR})")
else()
  message(NOTICE "opscope: ggml's headers (ggml.h, ggml-backend.h) not found: no capture library "
                 "(libopscope-ggml.so), so `opscope record` cannot profile programs with this build; "
                 "report, diff, view and the tests build as usual. To profile: install ggml's headers "
                 "(Debian: libggml-dev, in forky and later) and configure again, or use the Debian forky "
                 "root that `make demo` makes, where opscope is built with it: "
                 "scripts/in-root.sh 'opscope record -- llama-completion ...'")
endif()
