// The token strip of the dream lab: one ship's interleaved sequence S0 A0 S1 A1 ... as a
// row of boxes with each token's position index (2t, 2t+1), the tokens held in the KV cache
// highlighted, and, where the cached key was stored with another index than the one it is
// used at now (the naive reuse of learned positions), both indices in red.
#pragma once
#include <span>

#include "app/app_context.hpp"
#include "core/wm/dream_lab.hpp"

namespace poslab::app {

struct TokenStripStyle {
  int max_tokens = 24;  // boxes drawn at most (the newest ones), [2, 512]
  float scale = 1.0f;   // UI scale
  bool dark = true;     // theme
};

// `cached`: the cache's tokens, oldest first (wm::DreamFrame::strip). `steps`: whole steps
// in the sequence so far (tokens S_0 .. A_{steps-1}). Returns the number of boxes drawn
// whose stored index differs from the used one. Tooltips and the legend are in the user's
// language (dreams.toml).
int token_strip(const AppContext& ctx, std::span<const wm::StripToken> cached, int steps,
                const TokenStripStyle& style);

}  // namespace poslab::app
