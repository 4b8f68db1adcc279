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

 private:
  std::uint64_t state_;
  bool haveSpare_ = false;
  double spare_ = 0.0;
};

std::vector<float> randomNormalVector(int n, std::uint64_t seed, double stddev = 1.0);

}  // namespace posviz
