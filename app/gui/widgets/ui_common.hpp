// ui_common.hpp: small widgets and number formatting shared by every view.
#pragma once

#include <string>
#include <vector>

#include "app/gui/widgets/heatmap.hpp"
#include "core/grid.hpp"

namespace posviz::app {

// A "(?)" after the previous widget; hovering shows `text` (the parameter's formula). With control
// help on screen (the default), the text's first sentence is also written under the widget, so the
// key sentence of a control is read without hovering.
void HelpMarker(const char* text);
void setInlineHelp(bool on);   // the shell sets it from View > Control help on screen
// The first sentence of a help text: up to the first ". " or line break (the whole text without one).
std::string firstSentence(const char* text);

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
// Slider for a double in [lo, hi], always clamped, log scale when log: the value stays a double
// (a loaded 0.1 is 0.1, not float 0.1), so the window computes with what the CLI computes with.
bool SliderDouble(const char* label, double* v, double lo, double hi, const char* format, bool log);

// "0.5, -1, 2e-3" -> values (commas and/or spaces separate). False with *error set
// ("value 3 is not a number: 'x'") on bad or non-finite input; out is left untouched then.
bool parseNumberList(const std::string& text, std::vector<double>& out, std::string* error);
std::string formatNumberList(const std::vector<double>& v, int significant = 4);
// A typed sentence as the toy model's tokens (core splitTokens): false with *error set
// ("sentence: type at least one word", "sentence: at most N words, got M") when it is empty or
// longer than maxTokens (0 = no limit); out is left untouched then.
bool sentenceTokens(const std::string& text, int maxTokens, std::vector<std::string>& out, std::string* error);
// InputText on a std::string (grows as the user types). True when edited.
bool inputTextString(const char* label, std::string& str, int flags = 0);
// The same, several lines, width x height pixels.
bool inputTextMultilineString(const char* label, std::string& str, float width, float height);

// Heatmap of softmax attention weights (rows: queries, cols: keys, [0, 1], magma): the hover
// names both tokens, `what` says which weights; masked cells are explained as causal.
HeatmapSpec attentionWeightSpec(const Grid& w, const std::vector<std::string>& rowTokens,
                                const std::vector<std::string>& colTokens, const std::string& what);

}  // namespace posviz::app
