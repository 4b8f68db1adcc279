// ui_common.hpp: small widgets and number formatting shared by every view.
#pragma once

#include <string>

namespace posviz::app {

// A "(?)" after the previous widget; hovering shows `text` (the parameter's formula).
void HelpMarker(const char* text);

// Shortest readable form: 4 significant digits, scientific outside [1e-3, 1e5). "-0.8415", "1.0e+06".
std::string formatShort(double v, int significant = 4);
// Integer with thin grouping: 131072 -> "131,072".
std::string formatCount(long long v);
// "512 x 64 (128.0 KiB)" for a float32 grid.
std::string formatGridSize(long long rows, long long cols);

// Inline error text in the theme's error colour (wraps).
void ErrorText(const std::string& message);
// Inline notice (amber), e.g. "GPU unavailable: ...".
void NoticeText(const std::string& message);
// Small rotating busy indicator of the current line height; progress < 0 = unknown.
void BusySpinner(const char* id, float progress);

// Slider for an int in [lo, hi] on a log scale, always clamped. True when edited.
bool SliderIntLog(const char* label, int* v, int lo, int hi, const char* format = "%d");
// Slider for an even int in [lo, hi] (d_model), always clamped and rounded to even.
bool SliderIntEven(const char* label, int* v, int lo, int hi);

}  // namespace posviz::app
