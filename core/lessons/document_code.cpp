#include "core/lessons/document_code.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/check.hpp"

namespace posviz {

namespace {

void requireEvenVector(const char* fn, const std::vector<double>& x) {
  requireEven(fn, "x.size()", static_cast<long long>(x.size()));
}

// inv_freq = 1 / base^(arange(0, d, 2) / d): the d/2 frequencies every document's code uses.
std::vector<double> docInvFreq(int d, double base) {
  std::vector<double> f(static_cast<std::size_t>(d / 2));
  for (int i = 0; i < d / 2; ++i) f[i] = 1.0 / std::pow(base, static_cast<double>(2 * i) / d);
  return f;
}

}  // namespace

std::vector<double> doc004RotaryPe(const std::vector<double>& x, double pos, double base) {
  requireEvenVector("doc004RotaryPe", x);
  requireGreater("doc004RotaryPe", "base", base, 1.0);
  const int d = static_cast<int>(x.size());
  const std::vector<double> f = docInvFreq(d, base);
  // angles (d/2 columns), then cos.repeat(1, 1, 1, 2): column c of the result is angle c mod d/2.
  std::vector<double> cosRep(x.size()), sinRep(x.size());
  for (int c = 0; c < d; ++c) {
    cosRep[c] = std::cos(pos * f[c % (d / 2)]);
    sinRep[c] = std::sin(pos * f[c % (d / 2)]);
  }
  // rotate_interleaved: stack([-x2, x1], -1).flatten(-2) = [-x1, x0, -x3, x2, ...]
  std::vector<double> out(x.size());
  for (int c = 0; c < d; ++c) {
    const double rotated = (c % 2 == 0) ? -x[c + 1] : x[c - 1];
    out[c] = x[c] * cosRep[c] + rotated * sinRep[c];
  }
  return out;
}

std::vector<double> doc001RotaryPe(const std::vector<double>& x, double pos, double base) {
  requireEvenVector("doc001RotaryPe", x);
  requireGreater("doc001RotaryPe", "base", base, 1.0);
  const int d = static_cast<int>(x.size());
  const int h = d / 2;
  const std::vector<double> f = docInvFreq(d, base);
  std::vector<double> out(x.size());
  for (int c = 0; c < d; ++c) {
    const double angle = pos * f[c % h];                 // cat([freqs, freqs])
    const double rotated = c < h ? -x[c + h] : x[c - h];  // rotate_half: cat([-x2, x1])
    out[c] = x[c] * std::cos(angle) + rotated * std::sin(angle);
  }
  return out;
}

std::vector<double> doc003ApplyRope(const std::vector<double>& x, double pos, double base) {
  requireEvenVector("doc003ApplyRope", x);
  requireGreater("doc003ApplyRope", "base", base, 1.0);
  const int d = static_cast<int>(x.size());
  const std::vector<double> f = docInvFreq(d, base);
  std::vector<double> out(x.size());
  for (int i = 0; i < d / 2; ++i) {
    const double x1 = x[2 * i], x2 = x[2 * i + 1];
    const double c = std::cos(pos * f[i]), s = std::sin(pos * f[i]);
    out[2 * i] = x1 * c - x2 * s;      // stack([x1_new, x2_new], -1).flatten(-2)
    out[2 * i + 1] = x1 * s + x2 * c;
  }
  return out;
}

std::vector<double> doc001AlibiSlopes(int numHeads) {
  requirePositiveInt("doc001AlibiSlopes", "numHeads", numHeads);
  std::vector<double> s;
  for (int h = 1; h <= numHeads; ++h) s.push_back(1.0 / std::pow(2.0, 8.0 * h / numHeads));
  return s;
}

std::vector<double> doc004AlibiSlopes(int numHeads) {
  requirePositiveInt("doc004AlibiSlopes", "numHeads", numHeads);
  const double ratio = std::pow(2.0, -std::pow(2.0, -(std::log2(static_cast<double>(numHeads)) - 3.0)));
  std::vector<double> s;
  for (int h = 1; h <= numHeads; ++h) s.push_back(std::pow(ratio, h));
  return s;
}

std::vector<double> doc001SinusoidalRow(double pos, int d) {
  requireEven("doc001SinusoidalRow", "d", d);
  std::vector<double> row(static_cast<std::size_t>(d));
  for (int i = 0; 2 * i < d; ++i) {
    const double div = std::exp(2.0 * i * (-std::log(10000.0) / d));
    row[2 * i] = std::sin(pos * div);
    row[2 * i + 1] = std::cos(pos * div);
  }
  return row;
}

std::vector<double> doc002SinusoidalRow(double pos, int d) {
  requirePositiveInt("doc002SinusoidalRow", "d", d);
  std::vector<double> row(static_cast<std::size_t>(d));
  for (int c = 0; c < d; ++c) {
    const double div = std::pow(10000.0, static_cast<double>(2 * (c / 2)) / d);  // div_term[c // 2]
    row[c] = c % 2 == 0 ? std::sin(pos / div) : std::cos(pos / div);
  }
  return row;
}

std::vector<int> broadcastShapes(const std::vector<int>& a, const std::vector<int>& b) {
  const std::size_t n = std::max(a.size(), b.size());
  std::vector<int> out(n, 1);
  for (std::size_t k = 0; k < n; ++k) {
    const int da = k < a.size() ? a[a.size() - 1 - k] : 1;
    const int db = k < b.size() ? b[b.size() - 1 - k] : 1;
    if (da <= 0 || db <= 0)
      failArgument("broadcastShapes", "dimensions must be > 0, got " + std::to_string(da <= 0 ? da : db));
    if (da != db && da != 1 && db != 1)
      failArgument("broadcastShapes", "shapes do not broadcast: " + std::to_string(da) + " vs " + std::to_string(db) +
                                          " in the dimension " + std::to_string(k) + " from the right");
    out[n - 1 - k] = std::max(da, db);
  }
  return out;
}

}  // namespace posviz
