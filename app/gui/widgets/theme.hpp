// theme.hpp: the dark and the light theme of the figures' own colours.
//
// The widgets and diagrams name their colours as they are in the dark theme; themed(c) gives the
// colour to draw now. In the light theme (View > Light theme: white backgrounds, for projectors
// and print) a grey turns to its mirror grey (a near-black backdrop becomes near-white, light text
// dark) and a light saturated colour is darkened until it reads on white; hue and alpha stay.
// Data colours (colormaps) are not themed: a value has one colour in both themes.
#pragma once

#include <imgui.h>

namespace posviz::app {

void setLightTheme(bool on);
bool lightTheme();

// c as the current theme draws it.
ImU32 themed(ImU32 c);
ImVec4 themed(const ImVec4& c);
// c in the light theme (whatever the current one).
ImU32 lightColor(ImU32 c);

}  // namespace posviz::app
