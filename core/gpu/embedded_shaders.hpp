// embedded_shaders.hpp: the text of shaders/*.comp and shaders/*.glsl, compiled into the binary.
//
// The table is generated at build time by embed_shaders.cmake (sorted by file name), so posviz
// runs from any directory. findEmbeddedShader("rope_grid.comp") returns nullptr when absent.
#pragma once

namespace posviz::gpu {

struct EmbeddedShader {
  const char* name;  // file name inside shaders/, e.g. "sinusoidal.comp"
  const char* text;  // the file's bytes, unchanged
};

extern const EmbeddedShader kEmbeddedShaders[];
extern const int kEmbeddedShaderCount;

const EmbeddedShader* findEmbeddedShader(const char* name);

}  // namespace posviz::gpu
