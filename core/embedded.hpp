// embedded.hpp: files compiled into the binary (the UI font, model presets, shaders, lesson data),
// so posviz runs from any directory and needs no files beside it.
//
// USAGE
//   const posviz::embedded::File* f = posviz::embedded::presets.find("gpt2.json");   // nullptr when absent
//   std::string_view text = f->text();
//
// Each group is generated at build time by cmake/embed.cmake's posviz_embed(TARGET GROUP FILES...)
// (the generator is cmake/embed_files.cpp), into the target that uses it; a group's files are
// sorted by name and every file's bytes are followed by a NUL that `size` does not count, so text
// files can be handed to C APIs as they are.
#pragma once

#include <cstddef>
#include <string_view>

namespace posviz::embedded {

struct File {
  const char* name;            // file name without folders: "DejaVuSans.ttf", "gpt2.json"
  const unsigned char* data;   // size bytes, then a NUL
  std::size_t size;
  std::string_view text() const { return {reinterpret_cast<const char*>(data), size}; }
};

struct Group {
  const File* files;
  std::size_t count;
  const File* begin() const { return files; }
  const File* end() const { return files + count; }
  const File* find(std::string_view name) const {
    for (const File& f : *this)
      if (name == f.name) return &f;
    return nullptr;
  }
};

// Defined only in the targets that embed them (see the CMakeLists that call posviz_embed).
extern const Group fonts;    // assets/fonts/*.ttf           (posviz_cli)
extern const Group presets;  // assets/presets/*.json        (posviz_cli)
extern const Group model_types;  // assets/model_types.json  (posviz_cli)
extern const Group shaders;  // shaders/*.comp, *.glsl       (posviz_gpu)
extern const Group lessons;  // assets/lessons/*.json        (posviz_lessons)
extern const Group comparison;  // assets/lessons/comparison.json (posviz_lessons; not a lesson)

}  // namespace posviz::embedded
