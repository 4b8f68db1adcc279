// Tests for core/colormap: matplotlib endpoints, diverging centre, cyclic wrap, masks, scales.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <vector>

#include "core/colormap.hpp"

using namespace posviz;

namespace {

bool same(Rgba8 a, Rgba8 b) { return a.r == b.r && a.g == b.g && a.b == b.b && a.a == b.a; }
bool rgb(Rgba8 c, int r, int g, int b) { return c.r == r && c.g == g && c.b == b && c.a == 255; }
double luma(Rgba8 c) { return 0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b; }

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

}  // namespace

TEST_CASE("colormap: endpoints match matplotlib's data") {
  CHECK(rgb(colormapColor(Colormap::Viridis, 0.0f), 68, 1, 84));     // #440154
  CHECK(rgb(colormapColor(Colormap::Viridis, 1.0f), 253, 231, 37));  // #fde725
  CHECK(rgb(colormapColor(Colormap::Magma, 0.0f), 0, 0, 4));         // #000004
  CHECK(rgb(colormapColor(Colormap::Magma, 1.0f), 252, 253, 191));   // #fcfdbf
  CHECK(rgb(colormapColor(Colormap::RdBu, 0.0f), 5, 48, 97));        // ColorBrewer #053061 (blue end)
  CHECK(rgb(colormapColor(Colormap::RdBu, 1.0f), 103, 0, 31));       // ColorBrewer #67001f (red end)
  CHECK(rgb(colormapColor(Colormap::Coolwarm, 0.0f), 59, 76, 192));
  CHECK(rgb(colormapColor(Colormap::Coolwarm, 1.0f), 180, 4, 38));
  CHECK(rgb(colormapColor(Colormap::Gray, 0.0f), 0, 0, 0));
  CHECK(rgb(colormapColor(Colormap::Gray, 1.0f), 255, 255, 255));
  CHECK(rgb(colormapColor(Colormap::Gray, 0.5f), 128, 128, 128));
  // Entry 128 of matplotlib's 256-entry lists sits at t = 128/255.
  CHECK(rgb(colormapColor(Colormap::Viridis, 128.0f / 255.0f), 33, 145, 140));  // #21918c
  CHECK(rgb(colormapColor(Colormap::Magma, 128.0f / 255.0f), 183, 55, 121));    // #b73779
  // Out-of-range t is clamped.
  CHECK(same(colormapColor(Colormap::Viridis, -3.0f), colormapColor(Colormap::Viridis, 0.0f)));
  CHECK(same(colormapColor(Colormap::Viridis, 7.0f), colormapColor(Colormap::Viridis, 1.0f)));
}

TEST_CASE("colormap: sequential maps grow in lightness") {
  for (Colormap c : {Colormap::Viridis, Colormap::Magma, Colormap::Gray}) {
    CAPTURE(colormapName(c));
    const auto lut = colormapLut(c);
    for (int k = 8; k < 256; k += 8) CHECK(luma(lut[static_cast<std::size_t>(k)]) > luma(lut[static_cast<std::size_t>(k - 8)]));
    CHECK(same(lut[0], colormapColor(c, 0.0f)));
    CHECK(same(lut[255], colormapColor(c, 1.0f)));
  }
}

TEST_CASE("colormap: diverging maps put 0 at a near-white centre, blue below, red above") {
  for (Colormap c : {Colormap::RdBu, Colormap::Coolwarm}) {
    CAPTURE(colormapName(c));
    const ColorScale s{c, -3.0f, 1.0f};
    CHECK(colormapT(s, 0.0f) == 0.5f);
    CHECK(colormapT(s, -3.0f) == 0.0f);
    CHECK(colormapT(s, 1.0f) == doctest::Approx(0.5 + 0.5 / 3));
    const Rgba8 mid = mapValue(s, 0.0f);
    CHECK(same(mid, colormapColor(c, 0.5f)));
    CHECK(mid.r >= 200);
    CHECK(mid.g >= 200);
    CHECK(mid.b >= 200);
    const Rgba8 neg = mapValue(s, -2.0f), pos = mapValue(s, 0.9f);
    CHECK(neg.b > neg.r);
    CHECK(pos.r > pos.b);
  }
  const Rgba8 rdbuMid = colormapColor(Colormap::RdBu, 0.5f);  // ColorBrewer's centre #f7f7f7
  CHECK(rdbuMid.r >= 240);
  CHECK(rdbuMid.g >= 240);
  CHECK(rdbuMid.b >= 240);
  // A zero range maps everything to the centre.
  CHECK(colormapT(ColorScale{Colormap::RdBu, 0.0f, 0.0f}, 0.0f) == 0.5f);
}

TEST_CASE("colormap: twilight is cyclic, t = 0 and t = 1 are the same colour") {
  CHECK(colormapKind(Colormap::Twilight) == ColormapKind::Cyclic);
  CHECK(same(colormapColor(Colormap::Twilight, 0.0f), colormapColor(Colormap::Twilight, 1.0f)));
  const ColorScale s{Colormap::Twilight};
  const float twoPi = 6.283185307179586f;
  CHECK(same(mapValue(s, 0.0f), mapValue(s, twoPi)));
  CHECK(same(mapValue(s, 1.0f), mapValue(s, 1.0f + 2 * twoPi)));
  CHECK(same(mapValue(s, -1.0f), mapValue(s, twoPi - 1.0f)));
  CHECK(colormapT(s, 3.0f * twoPi / 4.0f) == doctest::Approx(0.75));
  // Near the wrap the colour is continuous: no jump between t = 0.999 and t = 0.
  const Rgba8 a = colormapColor(Colormap::Twilight, 0.999f), b = colormapColor(Colormap::Twilight, 0.0f);
  CHECK(std::abs(a.r - b.r) + std::abs(a.g - b.g) + std::abs(a.b - b.b) <= 6);
  // Twilight is light at 0 and dark in the middle.
  CHECK(luma(colormapColor(Colormap::Twilight, 0.0f)) > 180);
  CHECK(luma(colormapColor(Colormap::Twilight, 0.5f)) < 80);
}

TEST_CASE("colormap: blues is ColorBrewer's Blues, white to navy, sampled as matplotlib samples it") {
  // ColorBrewer Blues, nine classes: #f7fbff at t = 0, #08306b at t = 1, #6baed6 in the middle
  // (class 5 of 9 falls on t = 0.5 exactly); tests/reference/blues_colormap.py.
  const Rgba8 lo = colormapColor(Colormap::Blues, 0.0f), mid = colormapColor(Colormap::Blues, 0.5f),
              hi = colormapColor(Colormap::Blues, 1.0f);
  CHECK(same(lo, Rgba8{0xf7, 0xfb, 0xff, 255}));
  CHECK(same(hi, Rgba8{0x08, 0x30, 0x6b, 255}));
  // t = 0.5 lies between table entries 127 and 128 (t = 127/255 and 128/255), each within one
  // step of #6baed6 along the segment towards #9ecae1 and #4292c6.
  CHECK(std::abs(mid.r - 0x6b) <= 2);
  CHECK(std::abs(mid.g - 0xae) <= 2);
  CHECK(std::abs(mid.b - 0xd6) <= 2);
  CHECK(colormapKind(Colormap::Blues) == ColormapKind::Sequential);
  CHECK(*parseColormapName("Blues") == Colormap::Blues);
  // Light to dark without a step back: the low end is paper.
  double last = luma(lo) + 1.0;
  for (int k = 0; k <= 255; ++k) {
    const double l = luma(colormapColor(Colormap::Blues, static_cast<float>(k) / 255.0f));
    CHECK(l <= last);
    last = l;
  }
}

TEST_CASE("colormap: non-finite values get the mask colour") {
  for (Colormap c : allColormaps()) {
    CAPTURE(colormapName(c));
    const ColorScale s{c, -1.0f, 1.0f};
    CHECK(same(mapValue(s, -kInf), kMaskColor));
    CHECK(same(mapValue(s, kInf), kMaskColor));
    CHECK(same(mapValue(s, kNan), kMaskColor));
    CHECK(std::isnan(colormapT(s, -kInf)));
    CHECK(same(colormapColor(c, kNan), kMaskColor));
  }
}

TEST_CASE("colormap: sequential scale, names, kinds and defaults") {
  const ColorScale s{Colormap::Viridis, 2.0f, 6.0f};
  CHECK(colormapT(s, 2.0f) == 0.0f);
  CHECK(colormapT(s, 3.0f) == 0.25f);
  CHECK(colormapT(s, 6.0f) == 1.0f);
  CHECK(colormapT(s, 100.0f) == 1.0f);
  CHECK(colormapT(ColorScale{Colormap::Viridis, 1.0f, 1.0f}, 1.0f) == 0.5f);
  CHECK(allColormaps().size() == 7);
  for (Colormap c : allColormaps()) {
    CAPTURE(colormapName(c));
    REQUIRE(parseColormapName(colormapName(c)).has_value());
    CHECK(*parseColormapName(colormapName(c)) == c);
  }
  CHECK(*parseColormapName("RdBu") == Colormap::RdBu);
  CHECK(*parseColormapName("grey") == Colormap::Gray);
  CHECK_FALSE(parseColormapName("jet").has_value());
  CHECK(colormapKind(Colormap::Viridis) == ColormapKind::Sequential);
  CHECK(colormapKind(Colormap::Gray) == ColormapKind::Sequential);
  CHECK(colormapKind(Colormap::RdBu) == ColormapKind::Diverging);
  CHECK(colormapKind(Colormap::Coolwarm) == ColormapKind::Diverging);
  CHECK(defaultColormapFor(-1.0f, 1.0f, false) == Colormap::RdBu);
  CHECK(defaultColormapFor(0.0f, 1.0f, false) == Colormap::Viridis);
  CHECK(defaultColormapFor(-5.0f, -1.0f, false) == Colormap::Viridis);
  CHECK(defaultColormapFor(-1.0f, 1.0f, true) == Colormap::Twilight);
  CHECK(defaultColormapFor(-kInf, 1.0f, false) == Colormap::Viridis);
}

TEST_CASE("colormap: bad arguments") {
  const auto bad = static_cast<Colormap>(42);
  CHECK_THROWS_WITH_AS(colormapColor(bad, 0.5f),
                       "colormapColor: colormap must be one of viridis, magma, gray, rdbu, coolwarm, twilight, blues, got 42", std::invalid_argument);
  CHECK_THROWS_WITH_AS(colormapLut(bad), "colormapLut: colormap must be one of viridis, magma, gray, rdbu, coolwarm, twilight, blues, got 42",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(colormapKind(bad), "colormapKind: colormap must be one of viridis, magma, gray, rdbu, coolwarm, twilight, blues, got 42",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(colormapT(ColorScale{Colormap::Twilight, 0, 1, 0.0f}, 1.0f),
                       "colormapT: scale.period must be a finite number > 0, got 0", std::invalid_argument);
  CHECK_THROWS_WITH_AS(colormapT(ColorScale{Colormap::Viridis, kNan, 1.0f}, 1.0f), "colormapT: scale.min must be a finite number, got nan",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(colormapT(ColorScale{Colormap::RdBu, 0.0f, kInf}, 1.0f), "colormapT: scale.max must be a finite number, got inf",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(mapValue(ColorScale{bad}, kNan), "mapValue: colormap must be one of viridis, magma, gray, rdbu, coolwarm, twilight, blues, got 42",
                       std::invalid_argument);
}

TEST_CASE("colormap: many values at once give each value's lookup-table colour") {
  // Values across and beyond each scale, with masked cells among them.
  std::vector<float> values;
  for (int i = -300; i <= 300; ++i) values.push_back(static_cast<float>(i) * 0.01f);
  values.insert(values.end(), {kNan, kInf, -kInf, 1e30f, -1e30f, 0.5f});
  const ColorScale scales[] = {{Colormap::Viridis, -1.0f, 2.0f}, {Colormap::Gray, 1.0f, 1.0f},
                               {Colormap::RdBu, -0.5f, 2.0f},     {Colormap::Twilight, 0.0f, 1.0f, 0.7f}};
  for (const ColorScale& s : scales) {
    CAPTURE(colormapName(s.map));
    std::vector<Rgba8> out(values.size());
    colormapLutColors(s, values, out);
    const auto lut = colormapLut(s.map);
    for (std::size_t i = 0; i < values.size(); ++i) {
      CAPTURE(values[i]);
      Rgba8 want = kMaskColor;
      if (std::isfinite(values[i])) want = lut[static_cast<std::size_t>(static_cast<int>(colormapT(s, values[i]) * 255.0f + 0.5f))];
      CHECK(out[i].r == want.r);
      CHECK(out[i].g == want.g);
      CHECK(out[i].b == want.b);
    }
  }
  // Sequential -1 .. 2: -1 is the first entry, 2 the last, 0.5 the middle one (127.5 rounds up).
  std::vector<Rgba8> three(3);
  const std::vector<float> ends{-1.0f, 2.0f, 0.5f};
  colormapLutColors({Colormap::Gray, -1.0f, 2.0f}, ends, three);
  CHECK(three[0].r == 0);
  CHECK(three[1].r == 255);
  CHECK(three[2].r == colormapLut(Colormap::Gray)[128].r);
  // A scale with no finite bounds is fine while every value is masked, as for colormapT.
  std::vector<Rgba8> masked(2);
  const std::vector<float> nans{kNan, kInf};
  colormapLutColors({Colormap::Viridis, kNan, kNan}, nans, masked);
  CHECK(masked[0].r == kMaskColor.r);
  CHECK(masked[1].g == kMaskColor.g);
  CHECK_THROWS_WITH_AS(colormapLutColors({Colormap::Viridis, kNan, 1.0f}, ends, three),
                       "colormapLutColors: scale.min must be a finite number, got nan", std::invalid_argument);
  CHECK_THROWS_WITH_AS(colormapLutColors({Colormap::Viridis, 0.0f, 1.0f}, ends, masked),
                       "colormapLutColors: out must hold one colour per value (3), got 2", std::invalid_argument);
}
