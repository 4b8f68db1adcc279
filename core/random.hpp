// random.hpp: a small seeded generator, identical on every platform and standard library.
//
// std::normal_distribution's output differs between libstdc++ and libc++, so tables and toy
// vectors that people compare across machines use this instead: SplitMix64 for the stream,
// Box-Muller (float64) for normals.
#pragma once

#include <cstdint>
#include <vector>

namespace posviz {

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t nextU64();
  double uniform();            // [0, 1)
  double normal();             // N(0, 1)
  // Skips n outputs of nextU64 at the cost of one: SplitMix64's state after n outputs is the seed
  // plus n times its increment. Normals come in pairs from two uniforms, so a generator discarded
  // by 2k (with no spare pending) continues with normal number 2k of the stream: a long table can
  // be drawn in parallel pieces with the same bits. Drops a pending spare normal.
  void discard(std::uint64_t n);
  // Skips n normals of the stream from the start (any n, odd too): the next normal() is normal
  // number n, as if n had been drawn. Only from a fresh generator or after an even number of
  // normals; costs at most one normal.
  void skipNormals(std::uint64_t n);

 private:
  std::uint64_t state_;
  bool haveSpare_ = false;
  double spare_ = 0.0;
};

std::vector<float> randomNormalVector(int n, std::uint64_t seed, double stddev = 1.0);

}  // namespace posviz
