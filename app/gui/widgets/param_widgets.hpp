// param_widgets.hpp: a slider or choice for one parameter of the table (app/cli/scheme_params.hpp).
//
// The slider reads everything from the Param: its label, range, log scale, text format and the
// line of help; the "(?)" gives the tab's own explanation first (`teach`), then what the parameter
// allows, its default and its command-line flag. A value outside the slider's usual span widens
// the span (a loaded config is shown as it is, never cut to the slider's end); values are always
// clamped to what the parameter allows, and EvenInt values to even numbers.
//
//   paramSlider(params::rope::kBase, s.params.base, "theta_i = base^(-2i/d) ...");
//   paramSlider(params::sinusoidal::kDModel, s.params.dModel);
//   paramChoice(params::rope::kLayout, s.params.layout);           // radio buttons
//   paramSlider(kPairParam, s.pair, nullptr, SliderSpan{0, pairs - 1});   // bounds of this moment
#pragma once

#include <optional>
#include <string>
#include <type_traits>

#include "app/cli/params.hpp"

namespace posviz::app {

// Bounds that hold now (pair < d_model/2, head <= heads), inside the parameter's own.
struct SliderSpan {
  double lo = 0.0, hi = 0.0;
};

// The (?) text: teach (when given), then the parameter's help, what it allows, its default and flag.
std::string paramHelpText(const cli::Param& p, const char* teach);
// The slider's ends for value v: the usual span widened to v, within the parameter's range and
// `span` when given. For a real range open at min, lo stays above min.
SliderSpan sliderSpanFor(const cli::Param& p, double v, const std::optional<SliderSpan>& span);

bool paramSlider(const cli::Param& p, int& v, const char* teach = nullptr, std::optional<SliderSpan> span = {});
bool paramSlider(const cli::Param& p, long long& v, const char* teach = nullptr, std::optional<SliderSpan> span = {});
bool paramSlider(const cli::Param& p, double& v, const char* teach = nullptr, std::optional<SliderSpan> span = {});
bool paramSlider(const cli::Param& p, float& v, const char* teach = nullptr, std::optional<SliderSpan> span = {});
// Radio buttons, one per choice, on one line.
bool paramChoiceIndex(const cli::Param& p, int& index, const char* teach = nullptr);
template <class E>
bool paramChoice(const cli::Param& p, E& value, const char* teach = nullptr) {
  static_assert(std::is_enum_v<E>);
  int i = static_cast<int>(value);
  if (!paramChoiceIndex(p, i, teach)) return false;
  value = static_cast<E>(i);
  return true;
}

}  // namespace posviz::app
