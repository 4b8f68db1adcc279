// Tests for core/train/matmul and elementwise: every product shape against a plain triple loop
// (edges, strides, accumulation, k past one block), and the float approximations of GELU, its
// slope and softmax against float64; then a whole float model against the same model in double.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <vector>

#include "core/random.hpp"
#include "core/train/elementwise.hpp"
#include "core/train/matmul.hpp"
#include "core/train/model.hpp"
#include "train_support.hpp"

using namespace posviz;
using namespace posviz::train;

namespace {

template <class T>
std::vector<T> randomValues(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<T> v(n);
  for (T& x : v) x = static_cast<T>(rng.normal());
  return v;
}

// Each entry against the exact sum (long double), within the bound of a k-term float sum:
// |error| <= (k + 1) u (|c| + sum |a_p b_p|), u the unit roundoff of T (Higham, Accuracy and
// Stability of Numerical Algorithms, 2nd ed., section 3.1). A wrong term breaks it by far.
template <class T>
void checkProducts() {
  const long double u = std::numeric_limits<T>::epsilon() / 2.0L;
  // n 17 and past: 16-float vectors where AVX-512 is there, then 8-float ones, then scalars.
  for (int m : {1, 3, 4, 9, 13}) {
    for (int n : {1, 5, 8, 17, 33, 48, 64}) {
      for (int k : {1, 7, 300}) {
        CAPTURE(m);
        CAPTURE(n);
        CAPTURE(k);
        const int lda = k + 2, ldb = n + 1, ldc = n + 3;  // strided operands
        const auto a = randomValues<T>(static_cast<std::size_t>(m * lda), 1), b = randomValues<T>(static_cast<std::size_t>(k * ldb), 2);
        const auto c0 = randomValues<T>(static_cast<std::size_t>(m * ldc), 3);
        std::vector<T> at(static_cast<std::size_t>(k * m)), bt(static_cast<std::size_t>(n * k)), scratch(static_cast<std::size_t>(n * k));
        for (int i = 0; i < m; ++i)
          for (int p = 0; p < k; ++p) at[static_cast<std::size_t>(p * m + i)] = a[static_cast<std::size_t>(i * lda + p)];
        for (int p = 0; p < k; ++p)
          for (int j = 0; j < n; ++j) bt[static_cast<std::size_t>(j * k + p)] = b[static_cast<std::size_t>(p * ldb + j)];
        std::vector<T> c1 = c0, c2 = c0, c3 = c0;
        gemm(m, n, k, a.data(), lda, b.data(), ldb, c1.data(), ldc, true);
        gemmAt(m, n, k, at.data(), m, b.data(), ldb, c2.data(), ldc, true);
        gemmBt(m, n, k, a.data(), lda, bt.data(), k, c3.data(), ldc, false, scratch.data());
        long double worst = 0.0L;   // |error| / bound
        bool sameOrder = true;
        for (int i = 0; i < m; ++i) {
          for (int j = 0; j < n; ++j) {
            // Every entry is c + a0 b0 + a1 b1 + ... in this order, whatever vector width ran it:
            // one rounding per term, or one per fused multiply-add where the CPU has them.
            T plain = c0[static_cast<std::size_t>(i * ldc + j)], fused = plain;
            for (int p = 0; p < k; ++p) {
              const T x = a[static_cast<std::size_t>(i * lda + p)], y = b[static_cast<std::size_t>(p * ldb + j)];
              plain += x * y;
              fused = std::fma(x, y, fused);
            }
            const std::size_t q = static_cast<std::size_t>(i * ldc + j);
            sameOrder = sameOrder && (c1[q] == plain || c1[q] == fused) && c1[q] == c2[q];
            long double ref = 0.0L, size = 0.0L;
            for (int p = 0; p < k; ++p) {
              const long double t = static_cast<long double>(a[static_cast<std::size_t>(i * lda + p)]) * b[static_cast<std::size_t>(p * ldb + j)];
              ref += t;
              size += std::fabs(t);
            }
            const long double c = c0[q], withC = (k + 1) * u * (std::fabs(c) + size), without = (k + 1) * u * size;
            worst = std::max({worst, std::fabs(c1[q] - (ref + c)) / withC, std::fabs(c2[q] - (ref + c)) / withC,
                              std::fabs(c3[q] - ref) / without});
          }
          // Padding between rows is left alone.
          for (int j = n; j < ldc; ++j) CHECK(c1[static_cast<std::size_t>(i * ldc + j)] == c0[static_cast<std::size_t>(i * ldc + j)]);
        }
        CHECK(worst <= 1.0L);
        CHECK(sameOrder);
      }
    }
  }
}

}  // namespace

TEST_CASE("kernels: gemm, gemmAt and gemmBt equal a plain triple loop") {
  checkProducts<double>();
  checkProducts<float>();
}

TEST_CASE("kernels: float GELU, its slope and softmax stay within float rounding of float64") {
  std::vector<float> u;
  for (int i = -2000; i <= 2000; ++i) u.push_back(static_cast<float>(i) * 0.005f);  // -10 .. 10
  u.push_back(-90.0f);
  u.push_back(90.0f);
  std::vector<float> g(u.size()), dg(u.size(), 1.0f), du(u.size());
  geluForward(u.size(), u.data(), g.data());
  geluBackward(u.size(), u.data(), dg.data(), du.data());
  double worstG = 0.0, worstD = 0.0;
  for (std::size_t i = 0; i < u.size(); ++i) {
    const double x = u[i], cdf = 0.5 * (1.0 + std::erf(x / std::numbers::sqrt2));
    const double slope = cdf + x * std::exp(-0.5 * x * x) / std::sqrt(2.0 * std::numbers::pi);
    worstG = std::max(worstG, std::fabs(g[i] - x * cdf) / std::max(1.0, std::fabs(x)));
    worstD = std::max(worstD, std::fabs(du[i] - slope));
  }
  CHECK(worstG < 3e-7);
  CHECK(worstD < 1e-6);
  CHECK(g.back() == 90.0f);
  CHECK(g[u.size() - 2] == 0.0f);
  for (int count : {1, 7, 8, 9, 33}) {
    // The float form reads whole vectors: the buffers keep kSoftmaxSlack floats past the row,
    // which must come back unchanged.
    std::vector<float> row(static_cast<std::size_t>(count + kSoftmaxSlack), 7.0f), bias(row.size(), 3.0f);
    std::vector<double> ref(static_cast<std::size_t>(count));
    for (int j = 0; j < count; ++j) {
      row[static_cast<std::size_t>(j)] = static_cast<float>(std::sin(j * 1.7) * 20.0);
      bias[static_cast<std::size_t>(j)] = static_cast<float>(-0.5 * j);
      ref[static_cast<std::size_t>(j)] = static_cast<double>(row[static_cast<std::size_t>(j)]);
    }
    std::vector<double> biasD(bias.begin(), bias.begin() + count);
    softmaxRow(row.data(), count, 0.25f, bias.data());
    softmaxRow(ref.data(), count, 0.25, biasD.data());
    for (int j = 0; j < count; ++j) CHECK(row[static_cast<std::size_t>(j)] == doctest::Approx(ref[static_cast<std::size_t>(j)]).epsilon(2e-6));
    for (std::size_t j = static_cast<std::size_t>(count); j < row.size(); ++j) CHECK(row[j] == 7.0f);
  }
}

TEST_CASE("kernels: the float model's loss and gradient follow the float64 model's") {
  using namespace posviz::train::testing;
  const Batch b = tinyBatch();
  for (const SchemeCase& sc : allSchemeCases()) {
    CAPTURE(sc.name);
    const ModelConfig c = tinyConfig(sc);
    Model<double> md(c, 1);
    md.initialize(3);
    Model<float> mf(c, 1);
    for (std::size_t i = 0; i < md.parameters().size(); ++i) mf.parameters()[i] = static_cast<float>(md.parameters()[i]);
    for (std::size_t i = 0; i < md.parameters().size(); ++i) md.parameters()[i] = static_cast<double>(mf.parameters()[i]);
    std::vector<double> gd(md.parameters().size());
    std::vector<float> gf(gd.size());
    const double ld = md.lossAndGradient(b, positionTables<double>(c, 8), gd, 1);
    const double lf = mf.lossAndGradient(b, positionTables<float>(c, 8), gf, 1);
    CHECK(lf == doctest::Approx(ld).epsilon(1e-5));
    double norm = 0.0, diff = 0.0;
    for (std::size_t i = 0; i < gd.size(); ++i) {
      norm += gd[i] * gd[i];
      diff += (gf[i] - gd[i]) * (gf[i] - gd[i]);
    }
    CHECK(std::sqrt(diff / norm) < 1e-4);
  }
}
