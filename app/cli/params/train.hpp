// train.hpp: the parameter table of the Train tab: the task, the trained length, the run's length
// and seeds, the model's size and learning rate (app/cli/params.hpp says what a Param is;
// app/cli/scheme_params.hpp lists the tables). `posviz train` and the Train tab both read them:
// the same defaults, ranges and help.
//
// The defaults are the default comparison's: copy at L = 16, 2000 steps at a peak rate of 0.003,
// three seeds, a model of d_model 32 (five schemes x three seeds train in about 40 s on two
// cores from the CLI). Ranges stay inside what core accepts (core/train/config.hpp, tasks.hpp,
// trainer.hpp); d_model must also be a multiple of the heads, which core checks when a run starts.
// The trained length stops at 64 so that the tab's evaluation at 8 L stays near 1024 tokens.
#pragma once

#include "app/cli/params.hpp"

// Each Param names only the fields it sets; the rest keep Param's defaults. GCC's
// -Wmissing-field-initializers reports every skipped field of a designated initializer.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace posviz::cli::params {

namespace training {  // TrainConfig (core/train/trainer.hpp)
// The choices in core's TaskKind order (kAllTasks).
inline const Param kTask{.key = "task", .flag = "--task", .label = "task", .kind = ParamKind::Choice, .min = 0, .max = 4,
                         .def = 0,
                         .help = "what the model learns: copy the symbols, reverse them, retrieve the one at a position, "
                                 "recall a key's value, or count a symbol",
                         .choices = {"copy", "reverse", "retrieve", "assoc", "count"}};
inline const Param kEncodings{.key = "encodings", .flag = "--encodings", .label = "encodings", .kind = ParamKind::Text,
                              .help = "the positional schemes trained side by side, one model each per seed"};
inline const Param kTrainLength{.key = "train_length", .flag = "--train-length", .label = "trained length L",
                                .kind = ParamKind::Int, .min = 1, .max = 64, .def = 16, .sliderMin = 2, .sliderMax = 32,
                                .log = true, .unit = "symbols",
                                .help = "training examples hold 1 .. L symbols (copy: 2 L + 1 tokens)"};
inline const Param kSteps{.key = "steps", .flag = "--steps", .label = "steps", .kind = ParamKind::Int, .min = 1,
                          .max = 10000000, .def = 2000, .sliderMin = 10, .sliderMax = 20000, .log = true, .unit = "steps",
                          .help = "optimiser steps per run (warmup, then a cosine decay over all of them)"};
inline const Param kSeeds{.key = "seeds", .flag = "--seeds", .label = "seeds", .kind = ParamKind::Int, .min = 1, .max = 100,
                          .def = 3, .sliderMin = 1, .sliderMax = 5, .unit = "runs",
                          .help = "runs per scheme, seeds --seed .. --seed + N - 1: each seed its own weights and data"};
inline const Param kDModel{.key = "d_model", .flag = "--d-model", .label = "d_model", .kind = ParamKind::Int, .min = 16,
                           .max = 256, .def = 32, .sliderMin = 16, .sliderMax = 128, .log = true,
                           .help = "model width: a multiple of the heads (head_dim = d_model / heads)"};
inline const Param kLayers{.key = "layers", .flag = "--layers", .label = "layers", .kind = ParamKind::Int, .min = 1,
                           .max = 4, .def = 2, .help = "transformer blocks: attention, then an MLP, each pre-LayerNorm"};
inline const Param kHeads{.key = "heads", .flag = "--heads", .label = "heads", .kind = ParamKind::Int, .min = 1, .max = 8,
                          .def = 4, .help = "attention heads per layer"};
inline const Param kBatch{.key = "batch", .flag = "--batch", .label = "batch", .kind = ParamKind::Int, .min = 1,
                          .max = 1024, .def = 32, .sliderMin = 4, .sliderMax = 128, .log = true, .unit = "sequences",
                          .help = "sequences per step"};
inline const Param kLearningRate{.key = "lr", .flag = "--lr", .label = "learning rate", .kind = ParamKind::Real,
                                 .min = 0.0, .max = 1.0, .def = 3e-3, .sliderMin = 1e-4, .sliderMax = 0.1, .log = true,
                                 .minExclusive = true, .format = "%.4g",
                                 .help = "AdamW's peak learning rate (warmup, then a cosine decay)"};
// The window's own: where the results go and come from, and what the attention maps show.
inline const Param kRunFolder{.key = "run_folder", .label = "run folder", .kind = ParamKind::Text,
                              .help = "a folder of saved runs: <encoding>/seed-<n>/ as `posviz train --save-weights` "
                                      "writes, or one run's folder"};
inline const Param kLayer{.key = "attention_layer", .label = "layer", .kind = ParamKind::Int, .min = 0, .max = 3,
                          .def = 0, .help = "the layer shown: its attention maps and its biases (0 = the first)"};
inline const Param kHead{.key = "attention_head", .label = "head", .kind = ParamKind::Int, .min = 0, .max = 7, .def = 0,
                         .help = "the head whose attention is shown (0 = the first)"};
}  // namespace training

}  // namespace posviz::cli::params

#pragma GCC diagnostic pop
