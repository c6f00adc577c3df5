# The HTML viewer template (viewer/*.html, .css, .js) and the diff page (viewer/diff.*),
# embedded into the library at build time:
# embed.cmake turns each file into a byte array in a generated .c, rebuilt when a file changes.
set(OPSCOPE_VIEWER_FILES
  ${CMAKE_SOURCE_DIR}/viewer/viewer.html
  ${CMAKE_SOURCE_DIR}/viewer/viewer.css
  ${CMAKE_SOURCE_DIR}/viewer/viewer.js
  ${CMAKE_SOURCE_DIR}/viewer/diff.html
  ${CMAKE_SOURCE_DIR}/viewer/diff.css
  ${CMAKE_SOURCE_DIR}/viewer/diff.js)
set(OPSCOPE_VIEWER_EMBED_C ${CMAKE_CURRENT_BINARY_DIR}/opscope_viewer_embed.c)
add_custom_command(
  OUTPUT ${OPSCOPE_VIEWER_EMBED_C}
  COMMAND ${CMAKE_COMMAND} -DOUT=${OPSCOPE_VIEWER_EMBED_C}
          "-DFILES=${OPSCOPE_VIEWER_FILES}"
          -P ${CMAKE_CURRENT_LIST_DIR}/embed.cmake
  DEPENDS ${OPSCOPE_VIEWER_FILES} ${CMAKE_CURRENT_LIST_DIR}/embed.cmake
  COMMENT "Embedding the HTML viewer template"
  VERBATIM)
add_library(opscope_viewer_embed STATIC ${OPSCOPE_VIEWER_EMBED_C})
set_target_properties(opscope_viewer_embed PROPERTIES C_VISIBILITY_PRESET hidden) # as the core
# The HTML exporter (src/export/html/) in opscope_core refers to these arrays.
target_link_libraries(opscope_core PUBLIC opscope_viewer_embed)
