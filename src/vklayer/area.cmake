# opscope's Vulkan layer (VK_LAYER_OPSCOPE_profiler): libopscope-vklayer.so and its manifest
# opscope-vklayer.json, written beside libopscope-ggml.so (which enables the layer for the
# programs it profiles). Built only where the Vulkan headers are (Debian's libvulkan-dev: the
# forky test root); elsewhere skipped with a message. It links nothing but libc: the loader
# hands it every Vulkan function.
set(OPSCOPE_VKLAYER_DIR ${CMAKE_CURRENT_LIST_DIR})
# The layer's handle tables need no Vulkan: built everywhere, so host tests cover them.
add_library(opscope_vkl_map STATIC ${OPSCOPE_VKLAYER_DIR}/vkl_map.c)
target_include_directories(opscope_vkl_map PUBLIC ${CMAKE_SOURCE_DIR}/src)
set_target_properties(opscope_vkl_map PROPERTIES POSITION_INDEPENDENT_CODE ON C_VISIBILITY_PRESET hidden)
find_path(OPSCOPE_VULKAN_INCLUDE_DIR NAMES vulkan/vk_layer.h)
if(OPSCOPE_VULKAN_INCLUDE_DIR)
  add_library(opscope-vklayer SHARED
    ${OPSCOPE_VKLAYER_DIR}/vkl_entry.c
    ${OPSCOPE_VKLAYER_DIR}/vkl_cmd.c
    ${OPSCOPE_VKLAYER_DIR}/vkl_done.c
    ${OPSCOPE_VKLAYER_DIR}/vkl_names.c
    ${OPSCOPE_VKLAYER_DIR}/vkl_state.c)
  target_include_directories(opscope-vklayer PRIVATE ${OPSCOPE_VULKAN_INCLUDE_DIR} ${CMAKE_SOURCE_DIR}/src)
  target_compile_definitions(opscope-vklayer PRIVATE _GNU_SOURCE)
  target_compile_options(opscope-vklayer PRIVATE -fvisibility=hidden)
  target_link_options(opscope-vklayer PRIVATE
    -Wl,--version-script=${OPSCOPE_VKLAYER_DIR}/exports.map -Wl,--no-undefined -Wl,-z,now)
  target_link_libraries(opscope-vklayer PRIVATE opscope_vkl_map Threads::Threads ${CMAKE_DL_LIBS})
  set_target_properties(opscope-vklayer PROPERTIES OUTPUT_NAME opscope-vklayer PREFIX lib
                        LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib)
  configure_file(${OPSCOPE_VKLAYER_DIR}/opscope-vklayer.json.in ${CMAKE_BINARY_DIR}/lib/opscope-vklayer.json @ONLY)
  message(STATUS "opscope: Vulkan layer libopscope-vklayer.so enabled (headers in ${OPSCOPE_VULKAN_INCLUDE_DIR})")
else()
  message(STATUS "opscope: Vulkan headers not found; the Vulkan layer is skipped")
endif()
