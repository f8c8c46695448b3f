// Small ImGui helpers every lab panel uses: tooltips, and sliders whose limits come from
// the ParamRange declared next to each parameter in core (so UI and validation agree).
#pragma once
#include <initializer_list>
#include <string>

#include "app/panel.hpp"
#include "app/widgets/tooltip.hpp"       // tooltip: wrapped tooltips
#include "app/widgets/wrapped_text.hpp"  // text_wrapped: TextWrapped that wraps Chinese too
#include "core/common/param_range.hpp"

namespace poslab::app {

// Slider over [r.lo, r.hi] (log scale if asked), clamped; `help` becomes its tooltip.
bool slider_double(const char* label, double& v, ParamRange r, const char* fmt, bool log,
                   const char* help = nullptr);
bool slider_int(const char* label, int& v, ParamRange r, bool log = false,
                const char* help = nullptr);

// One choice of a radio_row: the button's label and its tooltip (nullptr: none).
struct RadioChoice {
  std::string label;
  const char* tip = nullptr;
};
// Radio buttons on one line choosing v = 0, 1, 2, ... (the choices in that order), each
// with its tooltip. True when a button was clicked.
bool radio_row(int& v, std::initializer_list<RadioChoice> choices);

// The last item's rectangle (e.g. a child window just ended): a panel's main_view_rect().
ViewRect last_item_rect();

}  // namespace poslab::app
