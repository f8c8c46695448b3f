// Small ImGui helpers every lab panel uses: tooltips, and sliders whose limits come from
// the ParamRange declared next to each parameter in core (so UI and validation agree).
#pragma once
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

// The last item's rectangle (e.g. a child window just ended): a panel's main_view_rect().
ViewRect last_item_rect();

}  // namespace poslab::app
