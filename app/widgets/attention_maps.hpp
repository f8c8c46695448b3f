// The dream lab's attention view for one dream step: the temporal attention of one ship's
// newest token over its cached tokens (one row per head), and the spatial attention
// between ships next to the relational bias that was added to its scores, as heatmaps.
#pragma once
#include "app/app_context.hpp"
#include "app/gfx/heatmap_texture.hpp"
#include "core/wm/dream_lab.hpp"

namespace poslab::app {

struct AttentionMapTextures {
  gfx::HeatmapTexture temporal, spatial, bias;
  void release() {
    temporal.release();
    spatial.release();
    bias.release();
  }
};

// `layer` picks the temporal block and the spatial block after it, `head` the spatial
// head (both edited by the sliders drawn here); `slot` is the ship whose row is shown. Texts
// are in the user's language (dreams.toml).
void attention_maps(const AppContext& ctx, const wm::DreamAttention& a, int& layer, int& head,
                    int slot, AttentionMapTextures& tex, float scale);

}  // namespace poslab::app
