// The RoPE controls every lab shares: head dim, partial rotary, base, layout and context
// extension with its own parameters. Slider limits are the RopeParams ParamRanges (the
// ranges validation reads), so no lab can offer a value another lab rejects.
#pragma once
#include <imgui.h>

#include "app/app_context.hpp"
#include "core/rope/rope.hpp"

namespace poslab::app {

// Which parts a lab shows (a lab whose head dim comes from elsewhere hides it).
struct RopeControlsParts {
  bool head_dim = true;         // D slider (the wheels lab; others derive D)
  bool rotary_fraction = true;  // partial rotary share
  bool base_buttons = true;     // 10k / 500k / 1M quick buttons
  bool layout_diagram = true;   // coloured boxes showing which dims pair up
  bool scaling = true;          // context-extension method and its parameters
};

// Draws the controls in the interface language (labels and tooltips from wheels.toml);
// returns true when a value changed.
bool rope_controls(const AppContext& ctx, RopeParams& r, const RopeControlsParts& parts,
                   float scale);

// Colour of pair i of n: hue follows log frequency (fast pairs warm, slow pairs violet);
// darker on the light theme (theme_colour).
ImU32 rope_pair_colour(int pair, int pairs, float alpha = 1.0f);

}  // namespace poslab::app
