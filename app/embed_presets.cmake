# embed_presets.cmake: compiles assets/presets/*.json into the binary, so `--preset NAME` and
# the app's Presets menu work from any directory.
#
# In app/CMakeLists.txt, after posviz_app_lib is defined:
#   include(${CMAKE_CURRENT_SOURCE_DIR}/embed_presets.cmake)
#   posviz_embed_presets(posviz_app_lib)
#
# The function adds the generated source to the target and defines POSVIZ_EMBEDDED_PRESETS, which
# makes app/model_config.cpp use the table (without it, presets are read from
# POSVIZ_ASSETS_DIR/presets at run time).
#
# Run as a script (cmake -DPRESET_DIR=... -DOUTPUT=... -P embed_presets.cmake) it writes OUTPUT:
#   namespace posviz::app::assets {
#     struct EmbeddedPreset { const char* name; const unsigned char* data; std::size_t size; };
#     const EmbeddedPreset kEmbeddedPresets[];  const std::size_t kEmbeddedPresetCount;
#   }
# with one entry per file, sorted by name (the file name without .json).

if(CMAKE_SCRIPT_MODE_FILE)
  file(GLOB preset_files "${PRESET_DIR}/*.json")
  list(SORT preset_files)
  set(body "")
  set(table "")
  set(index 0)
  foreach(f ${preset_files})
    get_filename_component(preset_name "${f}" NAME_WLE)
    file(READ "${f}" hex HEX)
    string(LENGTH "${hex}" hex_length)
    math(EXPR size "${hex_length} / 2")
    string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
    string(APPEND body "const unsigned char kPreset${index}[] = {${bytes}0x00};\n")
    string(APPEND table "  {\"${preset_name}\", kPreset${index}, ${size}},\n")
    math(EXPR index "${index} + 1")
  endforeach()
  if(index EQUAL 0)
    message(FATAL_ERROR "embed_presets: no *.json files in ${PRESET_DIR}")
  endif()
  set(content "// Generated from assets/presets/*.json by app/embed_presets.cmake. Do not edit.
#include <cstddef>
namespace posviz::app::assets {
struct EmbeddedPreset { const char* name; const unsigned char* data; std::size_t size; };
extern const EmbeddedPreset kEmbeddedPresets[];
extern const std::size_t kEmbeddedPresetCount;
namespace {
${body}}  // namespace
const EmbeddedPreset kEmbeddedPresets[] = {
${table}};
const std::size_t kEmbeddedPresetCount = ${index};
}  // namespace posviz::app::assets
")
  file(WRITE "${OUTPUT}.tmp" "${content}")
  file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
  return()
endif()

set(POSVIZ_EMBED_PRESETS_SCRIPT ${CMAKE_CURRENT_LIST_FILE})

function(posviz_embed_presets target)
  set(preset_dir ${PROJECT_SOURCE_DIR}/assets/presets)
  file(GLOB preset_files CONFIGURE_DEPENDS ${preset_dir}/*.json)
  set(output ${CMAKE_CURRENT_BINARY_DIR}/generated/embedded_presets.cpp)
  add_custom_command(
    OUTPUT ${output}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_CURRENT_BINARY_DIR}/generated
    COMMAND ${CMAKE_COMMAND} -DPRESET_DIR=${preset_dir} -DOUTPUT=${output} -P ${POSVIZ_EMBED_PRESETS_SCRIPT}
    DEPENDS ${preset_files} ${POSVIZ_EMBED_PRESETS_SCRIPT}
    COMMENT "Embedding assets/presets/*.json")
  target_sources(${target} PRIVATE ${output})
  target_compile_definitions(${target} PRIVATE POSVIZ_EMBEDDED_PRESETS)
  set_source_files_properties(${output} PROPERTIES COMPILE_OPTIONS "-w")
endfunction()
