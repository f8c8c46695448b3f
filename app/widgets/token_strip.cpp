// Draws the dream lab's token strip (token_strip.hpp) with ImGui's draw list.
#include "app/widgets/token_strip.hpp"

#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <utility>
#include <vector>

#include "app/gfx/opaque_rect.hpp"
#include "app/widgets/tr_args.hpp"
#include "app/widgets/wrapped_text.hpp"

namespace poslab::app {

int token_strip(const AppContext& ctx, std::span<const wm::StripToken> cached, int steps,
                const TokenStripStyle& style) {
  const float s = style.scale;
  const float box_w = 56 * s, box_h = 58 * s, gap = 3 * s;
  const int total = 2 * std::max(steps, 0);
  const int shown = std::min(total, std::clamp(style.max_tokens, 2, 512));
  const int first = total - shown;
  // Cached entries by nominal index (the strip holds them oldest first, contiguous).
  auto find = [&](int nominal) -> const wm::StripToken* {
    for (const wm::StripToken& t : cached)
      if (t.nominal == nominal) return &t;
    return nullptr;
  };
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 o = ImGui::GetCursorScreenPos();
  // The strip's item first: ImGui's hover test (not a bare rectangle) keeps its tooltips
  // from showing through a popup, menu or modal above it.
  ImGui::Dummy(ImVec2(std::max(1, shown) * (box_w + gap), box_h));
  const bool strip_hovered = ImGui::IsItemHovered();
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  const ImU32 dim = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  const ImU32 fill_s = style.dark ? IM_COL32(40, 80, 130, 255) : IM_COL32(190, 215, 245, 255);
  const ImU32 fill_a = style.dark ? IM_COL32(110, 70, 40, 255) : IM_COL32(245, 215, 185, 255);
  const ImU32 red = IM_COL32(230, 60, 60, 255);
  auto box = [&](int i) {
    const ImVec2 a(o.x + i * (box_w + gap), o.y);
    return std::pair{a, ImVec2(a.x + box_w, a.y + box_h)};
  };
  // The fills of cached tokens are opaque: drawn together without blending, which a software
  // renderer does at a fraction of the cost (app/gfx/opaque_rect.hpp).
  gfx::begin_without_blending(dl);
  for (int i = 0; i < shown; ++i)
    if (find(first + i)) {
      const auto [a, b] = box(i);
      dl->AddRectFilled(a, b, (first + i) % 2 == 1 ? fill_a : fill_s);
    }
  gfx::end_without_blending(dl);
  int mismatched = 0;
  char buf[32];
  for (int i = 0; i < shown; ++i) {
    const int nominal = first + i;
    const bool action = nominal % 2 == 1;
    const wm::StripToken* c = find(nominal);
    const auto [a, b] = box(i);
    dl->AddRect(a, b, c ? text : dim);
    std::snprintf(buf, sizeof buf, "%c%d", action ? 'A' : 'S', nominal / 2);
    dl->AddText(ImVec2(a.x + 4 * s, a.y + 2 * s), c ? text : dim, buf);
    std::snprintf(buf, sizeof buf, "%d", nominal);
    dl->AddText(ImVec2(a.x + 4 * s, a.y + 18 * s), dim, buf);
    if (c) {
      const bool off = c->stored != c->used;
      mismatched += off;
      if (off)
        std::snprintf(buf, sizeof buf, "%d>%d", c->stored, c->used);
      else
        std::snprintf(buf, sizeof buf, "@%d", c->used);
      dl->AddText(ImVec2(a.x + 4 * s, a.y + 36 * s), off ? red : text, buf);
    }
    if (strip_hovered && ImGui::IsMouseHoveringRect(a, b)) {
      ImGui::BeginTooltip();
      // The texts come from dreams.toml: {name} placeholders, never a printf format.
      ImGui::TextUnformatted(
          tr_args(ctx.tr("dreams.strip_tip_token"), {{"kind", action ? "A" : "S"},
                                                     {"index", std::to_string(nominal / 2)},
                                                     {"nominal", std::to_string(nominal)},
                                                     {"what", action ? "2t+1" : "2t"}})
              .c_str());
      if (c)
        ImGui::TextUnformatted(
            tr_args(ctx.tr("dreams.strip_tip_cached"),
                    {{"stored", std::to_string(c->stored)},
                     {"used", std::to_string(c->used)},
                     {"note", c->stored != c->used ? ctx.tr("dreams.strip_tip_mismatch") : ""}})
                .c_str());
      else
        ImGui::TextUnformatted(ctx.tr("dreams.strip_tip_not_cached"));
      ImGui::EndTooltip();
    }
  }
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  text_wrapped("%s", ctx.tr("dreams.strip_legend"));
  ImGui::PopStyleColor();
  return mismatched;
}

}  // namespace poslab::app
