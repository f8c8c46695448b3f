// The KV-cache lab's pieces that need no panel state: method colours and help texts,
// number formats, the slot dial, the error meter, the error-per-step plot, the stitching
// table and the drawn-numbers record for the panel-vs-CLI test. Split out of
// kv_panel.cpp, which holds the panel class, its controls, its job and its layout.
#pragma once
#include <imgui.h>

#include <string>

#include "app/app_context.hpp"
#include "core/kv/kv_session.hpp"

namespace poslab::app {

enum class KvPlotMetric { output, keys, logits };

// A method's colour (darker on the light theme) and its help text in the interface language.
ImU32 method_colour(KvMethod m);
const char* method_help(const AppContext& ctx, KvMethod m);
// Green (rounding level) -> yellow -> red (order 1) on a log scale.
ImU32 error_colour(double e, float alpha = 1.0f);
std::string sci(double v);                   // 3 significant digits, scientific outside [1e-2, 1e4)
std::string index_text(double v);            // an index as typed (%.6g)
std::string prefixed(char c, double index);  // "c12"

// A small dial for one slot: grey hand where its key should point, coloured hand where
// the stored key points (longer = too long a key).
void kv_draw_slot_dial(ImDrawList* dl, const KvModelParams& p, const KvSlot& s, int pair, ImVec2 c,
                       float r, bool unstitched);
// One error bar: log10 error from 1e-9 (empty) to 1 (full), coloured by error_colour.
// Begins the error table (one row per method, one column per layer plus the logits) with its
// columns sized from their text and the header row; the caller ends it when true.
bool kv_begin_meters_table(const AppContext& ctx, const KvSession& ses, int L, float scale);
void kv_meter(double e, float scale);
// Error against the step number for every method, log axis.
void kv_draw_plot(const AppContext& ctx, const KvSession& ses, const KvLabSettings& view,
                  KvPlotMetric metric, float scale);
// The two stitching numbers, kept apart: key-position error and output vs scratch.
void kv_draw_stitch_numbers(const AppContext& ctx, const KvSession& ses, const KvLabSettings& view);
// Appends what the panel drew to $POSLAB_DRAWN_NUMBERS (app/widgets/drawn_numbers.hpp).
void kv_record_numbers(const KvSession& ses);

}  // namespace poslab::app
