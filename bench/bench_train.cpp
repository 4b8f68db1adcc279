// bench_train.cpp: training steps per second of core/train's Trainer at the sizes issue 28 names,
// on one thread and on two, for scripts/bench (joined with bench/train_reference.py by
// bench/train_table.py).
//
// WORKLOADS  the copy task at n = 16 only (every input 33 tokens, the 32 x 33 batch
//            train_reference.py times, so both sides do the same work), RoPE, 2 layers, 4 heads,
//            MLP 4 d_model, batch 32, at d_model 32 and 64: the CLI's defaults, the second wider.
//            (The CLI trains on n = 1..16; its batches' padding costs nothing, model.hpp's
//            batchChunks, which the default comparison's wall time in scripts/bench shows.)
// TIMING     a Trainer with a schedule long enough never to end; 20 steps of warm-up, then
//            `repeats` timings of as many steps as fill about `seconds` each; the median is
//            reported, with the steps per second of the process's CPU time (std::clock) beside it:
//            on a shared machine a one-thread run's CPU rate is what an idle core would do. Each
//            timed step's FLOPs are counted from the positions its chunks run, see flopsPerStep.
// OUTPUT     one JSON object on stdout:
//            {"workloads": {"d32": {"threads_1": {"steps_per_second", "gflops", "steps_per_cpu_second"},
//             "threads_2": ...,
//             "flops_per_step_33_tokens"}, "d64": ...}, "machine": {"threads": n}}
//
//   posviz_train_bench [--quick]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <cstring>
#include <string>
#include <vector>

#include "core/parallel.hpp"
#include "core/train/train.hpp"

namespace {

namespace tr = posviz::train;

// Matmul FLOPs of one training step (forward 1x, backward 2x), the convention of Kaplan et al.
// plus causal attention: per token and layer q, k, v, o (4 D^2 multiply-adds) and the MLP (2 D F);
// per sequence and layer q.k and p.v over the T(T+1)/2 causal pairs (D each); the head (D V).
// LayerNorm, softmax, GELU and AdamW are left out (a few percent at these sizes).
double flopsPerStep(const tr::ModelConfig& m, int batch, int tokens) {
  const double d = m.dModel, f = m.mlp ? m.hidden() : 0, t = tokens, v = m.vocabSize, layers = m.numLayers;
  const double perToken = layers * (2.0 * 4.0 * d * d + 2.0 * 2.0 * d * f) + 2.0 * d * v;
  const double attention = layers * 2.0 * 2.0 * d * t * (t + 1.0) / 2.0;
  return 3.0 * batch * (t * perToken + attention);
}

// The same over the chunks a step runs: each chunk's sequences at the chunk's length.
double flopsPerStep(const tr::ModelConfig& m, const tr::Batch& b, int perChunk) {
  double sum = 0.0;
  for (const tr::BatchChunk& chunk : tr::batchChunks(b, perChunk, true))
    sum += flopsPerStep(m, static_cast<int>(chunk.sequences.size()), chunk.length);
  return sum;
}

tr::TrainConfig workload(int dModel, int threads) {
  tr::TrainConfig c;  // copy, L = 16, rope, 2 layers, 4 heads, batch 32
  c.task.minTrainLength = c.task.trainLength;  // n = 16 only: 33-token inputs, no padding
  c.model.dModel = dModel;
  c.steps = 1000000000;
  c.threads = threads;
  return c;
}

struct Timing {
  double stepsPerSecond = 0.0;     // wall clock
  double flopsPerSecond = 0.0;
  double stepsPerCpuSecond = 0.0;  // the process's CPU time: on a busy machine, what the cores did
};

double cpuSeconds() { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }

Timing measure(int dModel, int threads, int repeats, double seconds) {
  tr::Trainer t(workload(dModel, threads));
  t.train(20);
  const tr::TrainConfig& c = t.config();
  const std::uint64_t dataSeed = tr::deriveSeed(c.seed, 2);  // the Trainer's data stream (trainer.hpp)
  auto timeSteps = [&](long long steps) {
    double flops = 0.0;
    for (long long s = t.step(); s < t.step() + steps; ++s)
      flops += flopsPerStep(c.model, tr::trainingBatch(c.task, c.batchSize, dataSeed, s), c.sequencesPerChunk);
    const double cpu = cpuSeconds();
    const auto start = std::chrono::steady_clock::now();
    t.train(steps);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return Timing{static_cast<double>(steps) / wall, flops / wall, static_cast<double>(steps) / std::max(1e-9, cpuSeconds() - cpu)};
  };
  const Timing probe = timeSteps(10);
  const long long steps = std::max(10LL, static_cast<long long>(seconds * probe.stepsPerSecond));
  std::vector<Timing> runs;
  for (int r = 0; r < repeats; ++r) runs.push_back(timeSteps(steps));
  std::sort(runs.begin(), runs.end(), [](const Timing& a, const Timing& b) { return a.stepsPerSecond < b.stepsPerSecond; });
  return runs[runs.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  const int repeats = quick ? 3 : 5;
  const double seconds = quick ? 0.5 : 1.5;
  const int cores = posviz::hardwareThreads();
  std::printf("{\n \"workloads\": {");
  bool firstWorkload = true;
  for (int d : {32, 64}) {
    tr::TrainConfig c = tr::resolvedConfig(workload(d, 1));
    std::printf("%s\n  \"d%d\": {\"flops_per_step_33_tokens\": %.0f", firstWorkload ? "" : ",", d, flopsPerStep(c.model, c.batchSize, 33));
    firstWorkload = false;
    for (int threads = 1; threads <= std::min(2, cores); ++threads) {
      std::fprintf(stderr, "posviz_train_bench: d_model %d, %d thread%s\n", d, threads, threads == 1 ? "" : "s");
      const Timing t = measure(d, threads, repeats, seconds);
      std::printf(", \"threads_%d\": {\"steps_per_second\": %.3f, \"gflops\": %.3f, \"steps_per_cpu_second\": %.3f}", threads,
                  t.stepsPerSecond, t.flopsPerSecond / 1e9, t.stepsPerCpuSecond);
    }
    std::printf("}");
  }
  std::printf("\n },\n \"machine\": {\"threads\": %d}\n}\n", cores);
  return 0;
}
