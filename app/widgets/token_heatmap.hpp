// A (T, T) matrix drawn as a heatmap with token labels on its axes when they fit (index
// ticks otherwise), a colour bar and the hovered cell; plus the upload helpers that turn
// masked (-inf) and undefined (NaN) cells grey. The attention lab draws its logits,
// weights, differences and demo maps with it; any lab with a token-by-token matrix can.
#pragma once
#include <string>
#include <vector>

#include "app/gfx/heatmap_texture.hpp"
#include "core/attention/attention.hpp"
#include "core/common/color_scale.hpp"

namespace poslab::app {

// Display copy: -inf (masked) and NaN (undefined) both become NaN, drawn grey.
std::vector<float> heatmap_display_values(const RowMatrixF& m);
// Largest |finite value|, at least a tiny positive number so the colour range is valid.
float heatmap_abs_max(const std::vector<float>& v);
// Uploads m (signed: diverging colours around 0, else viridis from 0) through a colour
// scale (core/common/color_scale.hpp: linear, log or rank) and sets the legend ticks.
// range > 0 widens the colour range to at least that (a difference is drawn on the scale
// of the matrices it compares, so float rounding noise stays white instead of being
// stretched to full colour). Returns the scale used.
ColorScale heatmap_upload(gfx::HeatmapTexture& tex, const RowMatrixF& m, bool signed_values,
                          float range = 0, ColorScaleKind kind = ColorScaleKind::linear);
// Two maps on one scale fitted to both (the shared scale of side-by-side views).
ColorScale heatmap_upload_shared(gfx::HeatmapTexture& tex_a, const RowMatrixF& a,
                                 gfx::HeatmapTexture& tex_b, const RowMatrixF& b,
                                 bool signed_values, ColorScaleKind kind);
// Standard deviation of the colour positions of m's finite cells under scale s (0 = one
// flat colour; a rank scale over distinct values gives about 0.29): what --check asserts.
double heatmap_color_spread(const ColorScale& s, const RowMatrixF& m);

// Maps of at most this many rows and columns print their values in the cells.
inline constexpr int kCellNumbersMax = 12;

// The hovered (query, key) cell, or (-1, -1).
struct CellHover {
  int row = -1, col = -1;
};
// Draws the texture as a side x side square with `caption` under it (in the interface
// language, e.g. "rows: queries, columns: keys"); a red cross-hair at mark_at > 0 (e.g. the
// trained length). Column labels too wide for their cells stand upright; a map of at most
// kCellNumbersMax tokens prints its values in the cells. Returns the hovered cell.
CellHover token_heatmap(const char* id, gfx::HeatmapTexture& tex,
                        const std::vector<std::string>& tokens, float side, float scale,
                        const char* caption, int mark_at = -1);

}  // namespace poslab::app
