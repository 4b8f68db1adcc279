#include "core/random.hpp"

#include <cmath>
#include <numbers>

#include "core/check.hpp"

namespace posviz {

// SplitMix64 (Steele, Lea, Flood 2014): one add and a bijective mix per output.
std::uint64_t Rng::nextU64() {
  state_ += 0x9e3779b97f4a7c15ull;
  std::uint64_t z = state_;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

void Rng::discard(std::uint64_t n) {
  state_ += n * 0x9e3779b97f4a7c15ull;   // wraps modulo 2^64, as the state does
  haveSpare_ = false;
}

void Rng::skipNormals(std::uint64_t n) {
  discard(n - n % 2);   // each pair of normals takes two uniforms
  if (n % 2 == 1) normal();   // the first of the pair holding normal n; its second is kept
}

double Rng::uniform() {
  // The top 53 bits give every double in [0, 1) with spacing 2^-53.
  return static_cast<double>(nextU64() >> 11) * 0x1.0p-53;
}

double Rng::normal() {
  if (haveSpare_) {
    haveSpare_ = false;
    return spare_;
  }
  // Box-Muller; u1 in (0, 1] so the log is finite.
  const double u1 = 1.0 - uniform();
  const double u2 = uniform();
  const double r = std::sqrt(-2.0 * std::log(u1));
  const double a = 2.0 * std::numbers::pi * u2;
  spare_ = r * std::sin(a);
  haveSpare_ = true;
  return r * std::cos(a);
}

std::vector<float> randomNormalVector(int n, std::uint64_t seed, double stddev) {
  requireNonNegativeInt("randomNormalVector", "n", n);
  requireAtLeast("randomNormalVector", "stddev", stddev, 0.0);
  Rng rng(seed);
  std::vector<float> v(static_cast<std::size_t>(n));
  for (float& x : v) x = static_cast<float>(rng.normal() * stddev);
  return v;
}

}  // namespace posviz
