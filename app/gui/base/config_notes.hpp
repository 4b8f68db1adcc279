// config_notes.hpp: a loaded model config never loses a value without a word.
//
// A tab's sliders have ranges; a config may hold more (hidden_size 8192 where the Sinusoidal tab's
// d_model slider ends at 4096). Each panel's apply function fits such a value to its control with
// fitConfigValue, which returns the nearest value the control can show and adds one line to the
// notes, and the shell shows the notes in its banner after "Loaded ...".
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "app/cli/args.hpp"
#include "app/cli/config_readings.hpp"
#include "app/cli/params.hpp"

namespace posviz::app {

using ConfigNotes = std::vector<std::string>;

// value when lo <= value <= hi; else the nearest bound, noting "<tab> tab: <field> <value> is past
// its <control> slider (<lo>..<hi>): shown at <bound>".
inline long long fitConfigValue(const char* tab, const char* field, const char* control, long long value, long long lo,
                                long long hi, ConfigNotes& notes) {
  if (value >= lo && value <= hi) return value;
  const long long fitted = value < lo ? lo : hi;
  notes.push_back(std::string(tab) + " tab: " + field + " " + std::to_string(value) + " is past its " + control + " slider (" +
                  std::to_string(lo) + ".." + std::to_string(hi) + "): shown at " + std::to_string(fitted));
  return fitted;
}

// A slider value as a note prints it: whole numbers without decimals.
inline std::string noteNumber(double v) {
  if (v == static_cast<double>(static_cast<long long>(v)) && v < 1e15) return std::to_string(static_cast<long long>(v));
  return std::to_string(v);
}

// fitConfigValue for a real-valued slider (a slope, a factor).
inline double fitConfigReal(const char* tab, const char* field, const char* control, double value, double lo, double hi,
                            ConfigNotes& notes) {
  if (value >= lo && value <= hi) return value;
  const double fitted = value < lo ? lo : hi;
  notes.push_back(std::string(tab) + " tab: " + field + " " + noteNumber(value) + " is past its " + control + " slider (" +
                  noteNumber(lo) + ".." + noteNumber(hi) + "): shown at " + noteNumber(fitted));
  return fitted;
}

// For a value a tab uses exactly whatever its slider's range (the RoPE tabs keep a config's
// head_dim and base as they are): a note when the slider cannot show it.
inline void notePastSlider(const char* tab, const char* field, const char* control, double value, double lo, double hi,
                           ConfigNotes& notes) {
  if (value >= lo && value <= hi) return;
  notes.push_back(std::string(tab) + " tab: " + field + " " + noteNumber(value) + " is past its " + control + " slider (" +
                  noteNumber(lo) + ".." + noteNumber(hi) + "): used as it is; dragging the slider brings it into the range");
}

// A config's value for a parameter of the table (app/cli/scheme_params.hpp): used as it is when
// the parameter allows it (its slider widens to show it); otherwise the nearest allowed value,
// with a note naming the field, the value and what is allowed.
inline double fitConfigParam(const char* tab, const char* field, const cli::Param& p, double value, ConfigNotes& notes) {
  if (cli::fitsParam(p, value)) return value;
  double fitted = std::clamp(value, p.min, p.max);
  if (p.isInteger()) fitted = std::floor(fitted);
  if (p.kind == cli::ParamKind::EvenInt) fitted -= std::fmod(fitted, 2.0);
  if (!cli::fitsParam(p, fitted)) fitted = p.def;
  notes.push_back(std::string(tab) + " tab: " + field + " " + noteNumber(value) + " is not " + cli::describeAllowed(p) +
                  ": shown at " + noteNumber(fitted));
  return fitted;
}

// The RoPE a tab shows of a loaded config: readRopeConfig's default kind of layer, as the views
// read it without --layer-type. Where that kind has no RoPE (EXAONE 4's full-attention layers are
// NoPE) the views refuse and ask for --layer-type; a tab shows the first kind with RoPE instead,
// and says so. None when the model has no RoPE at all.
inline std::optional<RopeParams> readTabRope(const char* tab, const cli::ModelConfig& c, ConfigNotes& notes) {
  try {
    return cli::readRopeConfig(c);
  } catch (const cli::UsageError&) {
    for (const cli::LayerKind& k : c.layerKinds) {
      if (k.scheme != cli::LayerScheme::Rope) continue;
      notes.push_back(std::string(tab) + " tab: the model's full-attention layers have no RoPE; shown: its " + k.attention +
                      " layers' RoPE");
      return cli::readRopeConfig(c, k.attention);
    }
    return std::nullopt;
  }
}

// The banner's text: "Config NAME: note. note."
inline std::string configNotesText(const std::string& configName, const ConfigNotes& notes) {
  std::string text = "Config " + configName + ":";
  for (const std::string& n : notes) text += " " + n + ".";
  return text;
}

}  // namespace posviz::app
