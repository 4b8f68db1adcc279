# embed.cmake: the one way posviz compiles files into a binary (font, presets, shaders, lessons).
#   posviz_embed(TARGET GROUP FILE...)
# generates embedded_GROUP.cpp defining posviz::embedded::GROUP (core/embedded.hpp) and adds it to
# TARGET. The generator (embed_files.cpp beside this file) is built for the host once.
# A cross build (the browser's) runs a generator built for the host, named by POSVIZ_EMBED_TOOL.
if(NOT TARGET posviz_embed_files)
  if(POSVIZ_EMBED_TOOL)
    add_executable(posviz_embed_files IMPORTED)
    set_target_properties(posviz_embed_files PROPERTIES IMPORTED_LOCATION "${POSVIZ_EMBED_TOOL}")
  else()
    add_executable(posviz_embed_files ${CMAKE_CURRENT_LIST_DIR}/embed_files.cpp)
  endif()
endif()

function(posviz_embed target group)
  set(output ${CMAKE_CURRENT_BINARY_DIR}/generated/embedded_${group}.cpp)
  add_custom_command(
    OUTPUT ${output}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_CURRENT_BINARY_DIR}/generated
    COMMAND posviz_embed_files ${output} ${group} ${ARGN}
    DEPENDS posviz_embed_files ${ARGN}
    COMMENT "Embedding ${group}"
    VERBATIM)
  target_sources(${target} PRIVATE ${output})
  # Generated arrays are not our code to lint.
  set_source_files_properties(${output} PROPERTIES COMPILE_OPTIONS "-w")
endfunction()
