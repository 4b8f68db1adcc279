// train.hpp: posviz_train in one include: train a small transformer live and see a positional
// scheme succeed or fail (issue #28's training core; the Train tab and `posviz train` build on it).
//
// THE PIECES (each header is its own manual)
//   config.hpp     ModelConfig / PositionConfig: the architecture and every scheme's settings
//   tasks.hpp      TaskConfig, copy / reverse / retrieve / assoc / count, batches from a seed
//   trainer.hpp    Trainer: train N steps with a progress callback (stop, resume), evaluate
//                  accuracy against length ("no row" for a learned table past its rows), attention
//                  maps of one example, the trained learned table, the trained ALiBi/T5/FIRE/KERPLE
//                  biases; RoPE scaling at evaluation and DroPE
//   weights.hpp    saveRun / loadRun: dir/model.safetensors + dir/config.json, hostile-input safe
//   model.hpp      Model<float|double>: parameters, forward and backward by hand (float trains,
//                  double checks gradients)
//   optimizer.hpp  AdamW, warmup + cosine schedule, gradient clipping
//   positions.hpp  the position-dependent tables, all from posviz_core's functions
//   matmul.hpp, elementwise.hpp, json.hpp   the kernels and the JSON reader underneath
//
// A RUN, END TO END
//   TrainConfig c;                                       // copy, L = 16, rope, d_model 32, 2 layers
//   c.model.position.scheme = PositionScheme::Alibi;
//   Trainer t(c);
//   t.train(c.steps, [&](const StepReport& r) { plot(r.step, r.loss); return !stop; });
//   for (const LengthResult& r : t.evaluate({16, 32, 64, 128}))
//     r.status == EvalStatus::Ok ? show(r.length, *r.accuracy) : showNoRow(r.length);
//   saveRun("runs/alibi-1", t);                          // later: Trainer u = loadRun("runs/alibi-1");
//
// DETERMINISM
//   A seed fixes the weights, the data of every step and the evaluation sets: the same config
//   gives the same bytes on any thread count, stopped and resumed or not.
#pragma once

#include "core/train/config.hpp"
#include "core/train/tasks.hpp"
#include "core/train/trainer.hpp"
#include "core/train/weights.hpp"
