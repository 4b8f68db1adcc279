// bench_kernels.cpp: every kernel of core/kernels.hpp at the sizes of issue 7, one thread and two,
// output into buffers allocated and touched once, plus the bandwidth yardsticks they are judged
// against (streaming stores and memset of the same output size, a streaming copy for RoPE apply,
// which reads as much as it writes).
//
// NAMES  <workload>/<variant>/threads:<n>, e.g. "sinusoidal_8192x1024/kernel/threads:2". Items are
// cells written (grids) or elements rotated (RoPE apply); bytes are bytes written.
// scripts/bench runs this with --benchmark_format=json and joins it with bench/reference.py.
//
// [SECTION] yardsticks   streaming store, memset, streaming copy of each output size; each kernel
//                        on an output that stays in cache ("cached": what its arithmetic allows)
// [SECTION] workloads    sinusoidal, RoPE apply and grids, ALiBi, score grid, learned lookup
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "core/alibi.hpp"
#include "core/fast_trig.hpp"
#include "core/kernels.hpp"
#include "core/learned.hpp"
#include "core/rope.hpp"
#include "core/sinusoidal.hpp"

namespace {

using namespace posviz;
namespace pk = posviz::kernels;

// 64-byte aligned floats, touched once so page faults stay out of the timings.
class Buffer {
 public:
  explicit Buffer(std::size_t count)
      : count_(count), data_(static_cast<float*>(::operator new(count * sizeof(float), std::align_val_t{64}))) {
    std::memset(data_, 0, count * sizeof(float));
  }
  ~Buffer() { ::operator delete(data_, std::align_val_t{64}); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  float* data() { return data_; }
  std::size_t size() const { return count_; }

 private:
  std::size_t count_;
  float* data_;
};

// Buffers by role, reused across iterations and across the benchmarks of one workload.
Buffer& buffer(const std::string& role, std::size_t count) {
  static std::map<std::string, std::unique_ptr<Buffer>> buffers;
  auto& b = buffers[role];
  if (!b || b->size() != count) {
    b.reset();
    b = std::make_unique<Buffer>(count);
  }
  return *b;
}

pk::KernelOptions threadsOption(int threads) {
  pk::KernelOptions o;
  o.maxThreads = threads;
  if (threads > 1) o.parallelMinBytes = 0;  // the "2 threads" rows always split
  return o;
}

void finish(benchmark::State& state, double itemsPerIteration, double bytesPerIteration) {
  state.SetItemsProcessed(static_cast<int64_t>(static_cast<double>(state.iterations()) * itemsPerIteration));
  state.SetBytesProcessed(static_cast<int64_t>(static_cast<double>(state.iterations()) * bytesPerIteration));
}

std::string name(const std::string& workload, const std::string& variant, int threads) {
  return workload + "/" + variant + "/threads:" + std::to_string(threads);
}

// [SECTION] yardsticks: what the memory system allows for an output of this size
void registerBandwidth(const std::string& workload, std::size_t outputFloats, bool withCopy) {
  for (int threads : {1, 2}) {
    benchmark::RegisterBenchmark(name(workload, "store_stream", threads).c_str(), [=](benchmark::State& state) {
      Buffer& out = buffer("out", outputFloats);
      const std::size_t perThread = (outputFloats + threads - 1) / threads;
      for (auto _ : state) {
        parallelFor(threads, threads, 1, [&](long long b, long long e) {
          for (long long t = b; t < e; ++t) {
            const std::size_t begin = static_cast<std::size_t>(t) * perThread;
            const std::size_t count = std::min(perThread, outputFloats - begin);
            pk::fillFloats(out.data() + begin, 1.0f, count, true);
          }
        });
        benchmark::ClobberMemory();
      }
      finish(state, static_cast<double>(outputFloats), static_cast<double>(outputFloats * sizeof(float)));
    })->UseRealTime()->Unit(benchmark::kMillisecond);
  }
  benchmark::RegisterBenchmark(name(workload, "memset", 1).c_str(), [=](benchmark::State& state) {
    Buffer& out = buffer("out", outputFloats);
    for (auto _ : state) {
      // Not zero: some CPUs write zeros faster than data, and no grid is all zeros.
      std::memset(out.data(), 0x3f, outputFloats * sizeof(float));
      benchmark::ClobberMemory();
    }
    finish(state, static_cast<double>(outputFloats), static_cast<double>(outputFloats * sizeof(float)));
  })->UseRealTime()->Unit(benchmark::kMillisecond);
  if (!withCopy) return;
  for (int threads : {1, 2}) {
    benchmark::RegisterBenchmark(name(workload, "copy_stream", threads).c_str(), [=](benchmark::State& state) {
      Buffer& in = buffer("in", outputFloats);
      Buffer& out = buffer("out", outputFloats);
      const std::size_t perThread = (outputFloats + threads - 1) / threads;
      for (auto _ : state) {
        parallelFor(threads, threads, 1, [&](long long b, long long e) {
          for (long long t = b; t < e; ++t) {
            const std::size_t begin = static_cast<std::size_t>(t) * perThread;
            const std::size_t count = std::min(perThread, outputFloats - begin);
            pk::copyFloats(out.data() + begin, in.data() + begin, count, true);
          }
        });
        benchmark::ClobberMemory();
      }
      finish(state, static_cast<double>(outputFloats), static_cast<double>(outputFloats * sizeof(float)));
    })->UseRealTime()->Unit(benchmark::kMillisecond);
  }
}

// The compute yardstick: the kernel, one thread, writing 256 KiB to 1 MiB (regular stores: below
// KernelOptions::streamMinBytes) again and again, so the output stays in cache and no memory
// traffic limits it. A kernel that runs near this rate on its full size is held back by its
// arithmetic, not by the memory system. Runs span whole rotor restarts (fasttrig::kRotorRestart
// positions, from a multiple of it), so each pays its exact restarts as the full run does.
constexpr std::size_t kCachedFloats = 65536;
constexpr int kRestart = fasttrig::kRotorRestart;

// Rows of a cached run: about kCachedFloats / perRow, in whole restarts.
int cachedRows(std::size_t perRow) {
  const auto rows = static_cast<int>(kCachedFloats / perRow);
  return std::max(kRestart, rows / kRestart * kRestart);
}

void registerCached(const std::string& workload, const std::string& variant, double items, double bytes,
                    std::function<void()> run) {
  benchmark::RegisterBenchmark(name(workload, variant, 1).c_str(), [=](benchmark::State& state) {
    for (auto _ : state) {
      run();
      benchmark::ClobberMemory();
    }
    finish(state, items, bytes);
  })->UseRealTime()->Unit(benchmark::kMicrosecond);
}

// "cached" for a run of the base size, "cached2" for twice it: bench/table.py takes the marginal
// rate between the two, so the per-call costs (checks, each call's exact start) drop out.
std::string cachedVariant(const std::string& base, int mult) {
  return mult == 1 ? base : "cached2" + base.substr(std::string("cached").size());
}

std::shared_ptr<std::vector<float>> cachedBuffer(std::size_t count) {
  return std::make_shared<std::vector<float>>(count, 0.0f);
}

// [SECTION] workloads
void registerSinusoidal(int rows, int dModel, bool t2t) {
  const std::string workload = std::string(t2t ? "sinusoidal_t2t_" : "sinusoidal_") + std::to_string(rows) + "x" +
                               std::to_string(dModel);
  const std::size_t cells = static_cast<std::size_t>(rows) * dModel;
  for (int threads : {1, 2}) {
    benchmark::RegisterBenchmark(name(workload, "kernel", threads).c_str(), [=](benchmark::State& state) {
      SinusoidalParams p;
      p.dModel = dModel;
      p.layout = t2t ? SinusoidalLayout::Tensor2Tensor : SinusoidalLayout::Interleaved;
      std::vector<double> w(static_cast<std::size_t>(dModel / 2));
      for (int i = 0; i < dModel / 2; ++i) w[static_cast<std::size_t>(i)] = sinusoidalFrequency(p, i);
      Buffer& out = buffer("out", cells);
      const pk::KernelOptions o = threadsOption(threads);
      for (auto _ : state) {
        if (t2t)
          pk::sinusoidalT2TInto(w.data(), dModel / 2, rows, 0, out.data(), o);
        else
          pk::sinusoidalInterleavedInto(w.data(), dModel / 2, rows, 0, out.data(), o);
        benchmark::ClobberMemory();
      }
      finish(state, static_cast<double>(cells), static_cast<double>(cells * sizeof(float)));
    })->UseRealTime()->Unit(benchmark::kMillisecond);
  }
  if (!t2t) registerBandwidth(workload, cells, false);
  SinusoidalParams p;
  p.dModel = dModel;
  p.layout = t2t ? SinusoidalLayout::Tensor2Tensor : SinusoidalLayout::Interleaved;
  auto w = std::make_shared<std::vector<double>>(static_cast<std::size_t>(dModel / 2));
  for (int i = 0; i < dModel / 2; ++i) (*w)[static_cast<std::size_t>(i)] = sinusoidalFrequency(p, i);
  for (int mult : {1, 2}) {
    const int few = cachedRows(static_cast<std::size_t>(dModel)) * mult;
    auto out = cachedBuffer(static_cast<std::size_t>(few) * dModel);
    const double cached = static_cast<double>(out->size());
    registerCached(workload, cachedVariant("cached", mult), cached, cached * sizeof(float), [=] {
      // Rows from the middle of the full grid: the same angle sizes as the full run's.
      if (t2t) pk::sinusoidalT2TInto(w->data(), dModel / 2, few, rows / 2, out->data(), threadsOption(1));
      else pk::sinusoidalInterleavedInto(w->data(), dModel / 2, few, rows / 2, out->data(), threadsOption(1));
    });
  }
}

// q and k of shape (1, heads, tokens, headDim), rotated out of place into reused buffers.
void registerRopeApply(RopeLayout layout, bool fromTables) {
  constexpr int heads = 32, tokens = 4096, headDim = 128;
  const std::size_t count = static_cast<std::size_t>(heads) * tokens * headDim;
  const std::string workload = layout == RopeLayout::HalfSplit ? "rope_apply_halfsplit" : "rope_apply_interleaved";
  for (int threads : {1, 2}) {
    benchmark::RegisterBenchmark(
        name(workload, fromTables ? "kernel_tables" : "kernel", threads).c_str(), [=](benchmark::State& state) {
          RopeParams p;
          p.headDim = headDim;
          p.layout = layout;
          const RopeFrequencies f = ropeFrequencies(p);
          const int n = static_cast<int>(f.invFreq.size());
          Buffer& q = buffer("q", count);
          Buffer& k = buffer("k", count);
          Buffer& qOut = buffer("qOut", count);
          Buffer& kOut = buffer("kOut", count);
          for (std::size_t j = 0; j < count; ++j) {
            q.data()[j] = static_cast<float>(j % 97) * 0.01f - 0.5f;
            k.data()[j] = static_cast<float>(j % 89) * 0.01f - 0.4f;
          }
          std::vector<float> cosT(static_cast<std::size_t>(tokens) * n), sinT(cosT.size());
          pk::ropeCosSinInto(f.invFreq.data(), n, tokens, 0, f.attentionFactor, cosT.data(), sinT.data());
          const pk::KernelOptions o = threadsOption(threads);
          const bool half = layout == RopeLayout::HalfSplit;
          for (auto _ : state) {
            for (auto [in, out] : {std::pair{&q, &qOut}, std::pair{&k, &kOut}}) {
              if (fromTables && half)
                pk::ropeApplyHalfSplitInto(cosT.data(), sinT.data(), n, headDim, tokens, heads, in->data(), out->data(), o);
              else if (fromTables)
                pk::ropeApplyInterleavedInto(cosT.data(), sinT.data(), n, headDim, tokens, heads, in->data(), out->data(), o);
              else if (half)
                pk::ropeApplyHalfSplitInto(f.invFreq.data(), n, f.attentionFactor, headDim, tokens, heads, 0, in->data(),
                                           out->data(), o);
              else
                pk::ropeApplyInterleavedInto(f.invFreq.data(), n, f.attentionFactor, headDim, tokens, heads, 0,
                                             in->data(), out->data(), o);
            }
            benchmark::ClobberMemory();
          }
          finish(state, 2.0 * static_cast<double>(count), 2.0 * static_cast<double>(count * sizeof(float)));
        })->UseRealTime()->Unit(benchmark::kMillisecond);
  }
  // Cached: 1 head x 256 tokens (128 KiB in, 128 KiB out), and twice the tokens; one tensor a run.
  RopeParams p;
  p.headDim = headDim;
  p.layout = layout;
  const auto f = std::make_shared<RopeFrequencies>(ropeFrequencies(p));
  const int n = static_cast<int>(f->invFreq.size());
  const bool half = layout == RopeLayout::HalfSplit;
  for (int mult : {1, 2}) {
    const int fewHeads = 1, fewTokens = kRestart * mult;
    const std::size_t few = static_cast<std::size_t>(fewHeads) * fewTokens * headDim;
    auto in = cachedBuffer(few), out = cachedBuffer(few);
    for (std::size_t j = 0; j < few; ++j) (*in)[j] = static_cast<float>(j % 97) * 0.01f - 0.5f;
    auto cosT = cachedBuffer(static_cast<std::size_t>(fewTokens) * n), sinT = cachedBuffer(cosT->size());
    pk::ropeCosSinInto(f->invFreq.data(), n, fewTokens, tokens / 2, f->attentionFactor, cosT->data(), sinT->data());
    registerCached(workload, cachedVariant(fromTables ? "cached_tables" : "cached", mult), static_cast<double>(few),
                   static_cast<double>(few * sizeof(float)), [=] {
                     const pk::KernelOptions o = threadsOption(1);
                     if (fromTables && half)
                       pk::ropeApplyHalfSplitInto(cosT->data(), sinT->data(), n, headDim, fewTokens, fewHeads, in->data(), out->data(), o);
                     else if (fromTables)
                       pk::ropeApplyInterleavedInto(cosT->data(), sinT->data(), n, headDim, fewTokens, fewHeads, in->data(), out->data(), o);
                     else if (half)
                       pk::ropeApplyHalfSplitInto(f->invFreq.data(), n, f->attentionFactor, headDim, fewTokens, fewHeads,
                                                  tokens / 2, in->data(), out->data(), o);
                     else
                       pk::ropeApplyInterleavedInto(f->invFreq.data(), n, f->attentionFactor, headDim, fewTokens, fewHeads,
                                                    tokens / 2, in->data(), out->data(), o);
                   });
  }
}

void registerRopeGrids() {
  constexpr int rows = 131072, pairs = 64;
  const std::size_t cells = static_cast<std::size_t>(rows) * pairs;
  for (int threads : {1, 2}) {
    benchmark::RegisterBenchmark(name("rope_cos_sin_131072x64", "kernel", threads).c_str(), [=](benchmark::State& state) {
      RopeParams p;
      const RopeFrequencies f = ropeFrequencies(p);
      Buffer& c = buffer("cos", cells);
      Buffer& s = buffer("sin", cells);
      const pk::KernelOptions o = threadsOption(threads);
      for (auto _ : state) {
        pk::ropeCosSinInto(f.invFreq.data(), pairs, rows, 0, f.attentionFactor, c.data(), s.data(), o);
        benchmark::ClobberMemory();
      }
      finish(state, 2.0 * static_cast<double>(cells), 2.0 * static_cast<double>(cells * sizeof(float)));
    })->UseRealTime()->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(name("rope_angle_131072x64", "kernel", threads).c_str(), [=](benchmark::State& state) {
      RopeParams p;
      const RopeFrequencies f = ropeFrequencies(p);
      Buffer& a = buffer("angle", cells);
      const pk::KernelOptions o = threadsOption(threads);
      for (auto _ : state) {
        pk::ropeAngleInto(f.invFreq.data(), pairs, rows, 0, a.data(), o);
        benchmark::ClobberMemory();
      }
      finish(state, static_cast<double>(cells), static_cast<double>(cells * sizeof(float)));
    })->UseRealTime()->Unit(benchmark::kMillisecond);
  }
  const auto f = std::make_shared<RopeFrequencies>(ropeFrequencies(RopeParams{}));
  for (int mult : {1, 2}) {
    const int fewCosSin = cachedRows(2 * static_cast<std::size_t>(pairs)) * mult;
    const int fewAngle = cachedRows(static_cast<std::size_t>(pairs)) * mult;
    auto c = cachedBuffer(static_cast<std::size_t>(fewCosSin) * pairs), s = cachedBuffer(c->size());
    auto a = cachedBuffer(static_cast<std::size_t>(fewAngle) * pairs);
    registerCached("rope_cos_sin_131072x64", cachedVariant("cached", mult), 2.0 * static_cast<double>(c->size()),
                   2.0 * static_cast<double>(c->size() * sizeof(float)), [=] {
                     pk::ropeCosSinInto(f->invFreq.data(), pairs, fewCosSin, rows / 2, f->attentionFactor, c->data(), s->data(),
                                        threadsOption(1));
                   });
    registerCached("rope_angle_131072x64", cachedVariant("cached", mult), static_cast<double>(a->size()),
                   static_cast<double>(a->size() * sizeof(float)),
                   [=] { pk::ropeAngleInto(f->invFreq.data(), pairs, fewAngle, rows / 2, a->data(), threadsOption(1)); });
  }
}

void registerAlibi() {
  constexpr int heads = 32, t = 2048;
  const std::size_t cells = static_cast<std::size_t>(heads) * t * t;
  const std::string workload = "alibi_32x2048x2048";
  for (int threads : {1, 2}) {
    benchmark::RegisterBenchmark(name(workload, "kernel", threads).c_str(), [=](benchmark::State& state) {
      const std::vector<double> slopes = alibiSlopes(heads);
      Buffer& out = buffer("out", cells);
      const pk::KernelOptions o = threadsOption(threads);
      for (auto _ : state) {
        pk::alibiVolumeInto(slopes.data(), heads, t, false, out.data(), o);
        benchmark::ClobberMemory();
      }
      finish(state, static_cast<double>(cells), static_cast<double>(cells * sizeof(float)));
    })->UseRealTime()->Unit(benchmark::kMillisecond);
  }
  registerBandwidth(workload, cells, false);
  const auto slopes = std::make_shared<std::vector<double>>(alibiSlopes(heads));
  for (int mult : {1, 2}) {
    const int side = 256 * mult;
    auto out = cachedBuffer(static_cast<std::size_t>(side) * side);
    registerCached(workload, cachedVariant("cached", mult), static_cast<double>(out->size()),
                   static_cast<double>(out->size() * sizeof(float)),
                   [=] { pk::alibiVolumeInto(slopes->data(), 1, side, false, out->data(), threadsOption(1)); });
  }
}

// Score grid of fixed q and k, T = 16384: the 2T-1 offsets by rotor sweep, then the Toeplitz fill.
void registerScoreGrid() {
  constexpr int t = 16384, headDim = 128;
  const std::size_t cells = static_cast<std::size_t>(t) * t;
  const std::string workload = "score_grid_16384";
  for (int threads : {1, 2}) {
    benchmark::RegisterBenchmark(name(workload, "kernel", threads).c_str(), [=](benchmark::State& state) {
      RopeParams p;
      p.headDim = headDim;
      const RopeFrequencies f = ropeFrequencies(p);
      const int n = static_cast<int>(f.invFreq.size());
      std::vector<double> cosCoef(static_cast<std::size_t>(n)), sinCoef(cosCoef.size());
      for (int i = 0; i < n; ++i) {  // q = k = (1, 0.5, 1, 0.5 ...) by pair, half-split
        cosCoef[static_cast<std::size_t>(i)] = 1.25;
        sinCoef[static_cast<std::size_t>(i)] = 0.0;
      }
      std::vector<double> byOffset(2 * static_cast<std::size_t>(t) - 1);
      Buffer& out = buffer("out", cells);
      const pk::KernelOptions o = threadsOption(threads);
      for (auto _ : state) {
        pk::ropeScoreOffsetsInto(f.invFreq.data(), cosCoef.data(), sinCoef.data(), n, 0.0, t, byOffset.data(), o);
        pk::ropeScoreFillInto(byOffset.data(), t, out.data(), o);
        benchmark::ClobberMemory();
      }
      finish(state, static_cast<double>(cells), static_cast<double>(cells * sizeof(float)));
    })->UseRealTime()->Unit(benchmark::kMillisecond);
  }
  registerBandwidth(workload, cells, false);
  RopeParams p;
  p.headDim = headDim;
  const auto f = std::make_shared<RopeFrequencies>(ropeFrequencies(p));
  const int n = static_cast<int>(f->invFreq.size());
  const auto cosCoef = std::make_shared<std::vector<double>>(static_cast<std::size_t>(n), 1.25);
  const auto sinCoef = std::make_shared<std::vector<double>>(static_cast<std::size_t>(n), 0.0);
  for (int mult : {1, 2}) {
    const int few = 256 * mult;
    auto byOffset = std::make_shared<std::vector<double>>(2 * static_cast<std::size_t>(few) - 1);
    auto out = cachedBuffer(static_cast<std::size_t>(few) * few);
    registerCached(workload, cachedVariant("cached", mult), static_cast<double>(out->size()),
                   static_cast<double>(out->size() * sizeof(float)), [=] {
                     pk::ropeScoreOffsetsInto(f->invFreq.data(), cosCoef->data(), sinCoef->data(), n, 0.0, few, byOffset->data(),
                                              threadsOption(1));
                     pk::ropeScoreFillInto(byOffset->data(), few, out->data(), threadsOption(1));
                   });
  }
}

void registerLearned() {
  constexpr int rows = 8192, dModel = 1024;
  const std::size_t cells = static_cast<std::size_t>(rows) * dModel;
  for (int threads : {1, 2}) {
    benchmark::RegisterBenchmark(name("learned_lookup_8192x1024", "kernel", threads).c_str(), [=](benchmark::State& state) {
      Buffer& table = buffer("table", cells);
      Buffer& out = buffer("out", cells);
      const pk::KernelOptions o = threadsOption(threads);
      for (auto _ : state) {
        pk::learnedLookupInto(table.data(), rows, dModel, 0, rows, out.data(), o);
        benchmark::ClobberMemory();
      }
      finish(state, static_cast<double>(cells), static_cast<double>(cells * sizeof(float)));
    })->UseRealTime()->Unit(benchmark::kMillisecond);
  }
  // A lookup reads every byte it writes: its yardstick is a streaming copy of the same size.
  registerBandwidth("learned_lookup_8192x1024", cells, true);
  for (int mult : {1, 2}) {
    const int few = static_cast<int>(kCachedFloats) / dModel * mult;
    auto table = cachedBuffer(static_cast<std::size_t>(few) * dModel), out = cachedBuffer(table->size());
    registerCached("learned_lookup_8192x1024", cachedVariant("cached", mult), static_cast<double>(out->size()),
                   static_cast<double>(out->size() * sizeof(float)),
                   [=] { pk::learnedLookupInto(table->data(), few, dModel, 0, few, out->data(), threadsOption(1)); });
  }
}

}  // namespace

int main(int argc, char** argv) {
  registerSinusoidal(8192, 1024, false);
  registerSinusoidal(131072, 128, false);
  registerSinusoidal(131072, 128, true);
  registerRopeApply(RopeLayout::HalfSplit, false);
  registerRopeApply(RopeLayout::HalfSplit, true);
  registerRopeApply(RopeLayout::Interleaved, false);
  // RoPE apply moves 2 x 128 MiB in and out: its yardstick is a streaming copy of that size.
  registerBandwidth("rope_apply", std::size_t{2} * 32 * 4096 * 128, true);
  registerRopeGrids();
  registerAlibi();
  registerScoreGrid();
  registerLearned();
  benchmark::AddCustomContext("isa", pk::activeIsaName());
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
