// learned_source.hpp: where a learned position table comes from when it is not seeded.
//
// `posviz export learned --table PATH` and the Learned tab's file field take the same PATHs:
//   a .npy file        a 2-D float32/float64 array, max_len x d_model (core/learned.hpp)
//   a trained run      the folder `posviz train --save-weights` or the Train tab's Save wrote for
//                      one learned run (DIR/learned/seed-1/), or its model.safetensors: the
//                      table is its pos_emb.weight after training (core/train/weights.hpp)
#pragma once

#include <string>

#include "core/grid.hpp"

namespace posviz::cli {

// The table at path. Throws std::runtime_error naming the path and what is wrong: no such file,
// a run whose scheme has no learned table, a file that is neither .npy nor a run.
Grid loadLearnedSource(const std::string& path);

// "trained run learned/seed-1 (16 x 32)" or "table.npy (1024 x 768)": the table's name on screen.
std::string learnedSourceName(const std::string& path, const Grid& table);

}  // namespace posviz::cli
