// The arena's drawing pieces: the ship table and the inspector of the selected ship (its 15
// token values and its relational features to every other ship), drawn from what core/bnb
// computes for the live state or the dataset row. The panel (arena_panel.cpp) owns the state.
#include "app/panels/arena_views.hpp"

#include <imgui.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <string>
#include <vector>

#include "app/panels/arena_help.hpp"
#include "app/widgets.hpp"
#include "app/widgets/theme_colour.hpp"
#include "core/bnb/bnb_features.hpp"

namespace poslab::app {
namespace {

// The action ship k took last: the live step's, or the file row's.
bnb::ShipAction arena_shown_action(const ArenaUi& u, int k) {
  if (u.lab.source == bnb::ArenaSource::live) return u.last_actions[k];
  if (u.episode.rows == 0) return {};
  return bnb::record_actions(u.episode, u.lab.row)[k];
}

// The tokens of one dataset row: (slots, token dim), row-major.
const float* arena_file_tokens(const ArenaUi& u, int row) {
  return u.episode.tokens.data() + static_cast<size_t>(row) * bnb::kSlots * bnb::kTokenDim;
}

}  // namespace

void arena_ship_list(const AppContext& ctx, ArenaUi& u, float scale, bool dark) {
  using bnb::kSlots;
  const auto T = [&ctx](const char* key) { return ctx.tr(key); };
  ImGui::TextDisabled("%s", T("arena.ships"));
  // Scrolls sideways instead of cutting the action column when the inspector is narrow.
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                                ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_ScrollX;
  const ImGuiStyle& st = ImGui::GetStyle();
  const float row_h = ImGui::GetFrameHeight() + 2 * st.CellPadding.y;
  const float table_h = row_h * (kSlots + 1) + st.ScrollbarSize + 2 * st.CellPadding.y;
  // The action column fits the longest action in the interface language (a fixed-fit column
  // sizes itself to the texts of its first frames, which may be shorter).
  float power_w = 0, turn_w = 0;
  for (const char* k : kPowerKeys) power_w = std::max(power_w, ImGui::CalcTextSize(T(k)).x);
  for (const char* k : kTurnKeys) turn_w = std::max(turn_w, ImGui::CalcTextSize(T(k)).x);
  const float space = ImGui::CalcTextSize(" ").x;
  const float action_w = power_w + turn_w + 2 * space + ImGui::CalcTextSize(T("arena.act.fire")).x;
  if (!ImGui::BeginTable("##ships", 5, flags, ImVec2(0, table_h))) return;
  ImGui::TableSetupScrollFreeze(1, 1);
  ImGui::TableSetupColumn(T("arena.slot"));
  ImGui::TableSetupColumn(T("arena.status"));
  ImGui::TableSetupColumn(T("arena.health"), ImGuiTableColumnFlags_WidthFixed, 80.0f * scale);
  ImGui::TableSetupColumn(T("arena.power"), ImGuiTableColumnFlags_WidthFixed, 80.0f * scale);
  ImGui::TableSetupColumn(T("arena.action"), ImGuiTableColumnFlags_WidthFixed, action_w);
  ImGui::TableNextRow(ImGuiTableRowFlags_Headers);
  const char* header_help[] = {"arena.slot_tip", "arena.status_tip", "arena.health_tip",
                               "arena.power_tip", "arena.action_tip"};
  for (int c = 0; c < 5; ++c) {
    ImGui::TableSetColumnIndex(c);
    ImGui::TableHeader(ImGui::TableGetColumnName(c));
    tooltip(T(header_help[c]));
  }
  for (int k = 0; k < kSlots; ++k) {
    const ArenaShipView& s = u.view.ships[k];
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    char label[32];
    std::snprintf(label, sizeof label, "%d (%s %d)", k, T("arena.team"), k / bnb::kSlotsPerTeam);
    ImGui::PushStyleColor(ImGuiCol_Text, arena_team_colour(k / bnb::kSlotsPerTeam, dark));
    if (ImGui::Selectable(label, u.lab.selected == k, ImGuiSelectableFlags_SpanAllColumns))
      u.lab.selected = k;
    ImGui::PopStyleColor();
    ImGui::TableNextColumn();
    const bool you = k == u.lab.helm && u.lab.source == bnb::ArenaSource::live;
    ImGui::TextUnformatted(T(!s.present ? "arena.absent"
                             : s.alive  ? (you ? "arena.alive_you" : "arena.alive")
                                        : "arena.dead"));
    ImGui::TableNextColumn();
    if (s.present) {
      char t[16];
      std::snprintf(t, sizeof t, "%.0f", s.health);
      ImGui::PushStyleColor(ImGuiCol_PlotHistogram, ImVec4(0.35f, 0.9f, 0.35f, 1));
      ImGui::ProgressBar(static_cast<float>(s.health / 100.0), ImVec2(-1, 0), t);
      ImGui::PopStyleColor();
    }
    ImGui::TableNextColumn();
    if (s.present) {
      char t[16];
      std::snprintf(t, sizeof t, "%.0f", s.power);
      ImGui::PushStyleColor(ImGuiCol_PlotHistogram, theme_colour(IM_COL32(255, 204, 64, 255)));
      ImGui::ProgressBar(static_cast<float>(s.power / 100.0), ImVec2(-1, 0), t);
      ImGui::PopStyleColor();
    }
    ImGui::TableNextColumn();
    if (s.alive) {
      const bnb::ShipAction a = arena_shown_action(u, k);
      ImGui::Text("%s %s%s%s", T(kPowerKeys[a.power]), T(kTurnKeys[a.turn]), a.shoot ? " " : "",
                  a.shoot ? T("arena.act.fire") : "");
    }
  }
  ImGui::EndTable();
}

void arena_inspector(const AppContext& ctx, ArenaUi& u, bool dark) {
  using bnb::kSlots;
  const auto T = [&ctx](const char* key) { return ctx.tr(key); };
  u.inspector_rows = -1;
  const int sel = u.lab.selected;
  ImGui::Separator();
  if (sel < 0 || !u.view.ships[sel].present) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    wrapped_text(T("arena.click_ship"));  // a narrow inspector at 1024x700 must not clip it
    ImGui::PopStyleColor();
    return;
  }
  // Token and relational features from core, for the live state or the file row.
  bnb::Token token{};
  std::array<bnb::Relational, kSlots> rel{};
  if (u.lab.source == bnb::ArenaSource::live) {
    token = bnb::ship_token(u.sim, sel);
    for (int j = 0; j < kSlots; ++j) rel[j] = bnb::relational_features(u.sim, sel, j);
  } else {
    if (u.episode.rows == 0) return;
    const float* tok = arena_file_tokens(u, u.lab.row);
    std::copy(tok + sel * bnb::kTokenDim, tok + (sel + 1) * bnb::kTokenDim, token.begin());
    std::vector<double> all(kSlots * kSlots * bnb::kRelDim);
    bnb::relational_from_tokens(tok, all.data());
    for (int j = 0; j < kSlots; ++j)
      std::copy(all.begin() + (sel * kSlots + j) * bnb::kRelDim,
                all.begin() + (sel * kSlots + j + 1) * bnb::kRelDim, rel[j].begin());
  }
  u.inspector_token = token;
  ImGui::Text("%s %d: %s", T("arena.slot"), sel, T("arena.state_vector"));
  // Names in the user's language ([arena.token] in arena.toml, core's English otherwise);
  // two values per row when both fit whole, else one, so no name is cut off.
  std::array<std::string, bnb::kTokenDim> names;
  float name_w = 0;
  for (int c = 0; c < bnb::kTokenDim; ++c) {
    char key_buf[24];
    std::snprintf(key_buf, sizeof key_buf, "arena.token.v%02d", c);
    const std::string key = key_buf;
    const char* t = T(key.c_str());
    names[c] = (key == t ? std::string(bnb::kTokenNames[c]) : std::string(t));
    name_w = std::max(name_w, ImGui::CalcTextSize(("00 " + names[c]).c_str()).x);
  }
  const float value_w = ImGui::CalcTextSize("+0.0000").x, pad = 4 * ImGui::GetStyle().CellPadding.x;
  const int per_row = ImGui::GetContentRegionAvail().x >= 2 * (name_w + value_w + pad) ? 2 : 1;
  if (ImGui::BeginTable("##token", 2 * per_row,
                        ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV)) {
    for (int c = 0; c < bnb::kTokenDim; ++c) {
      if (c % per_row == 0) ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextDisabled("%2d %s", c, names[c].c_str());
      tooltip(T(kTokenHelp[c]));
      ImGui::TableNextColumn();
      ImGui::Text("%+.4f", static_cast<double>(token[c]));
    }
    ImGui::EndTable();
  }
  ImGui::Text("%s: %s %d", T("arena.relational"), T("arena.slot"), sel);
  ImGui::TextDisabled("%s", T("arena.frame"));
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                                ImGuiTableFlags_ScrollX | ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("##relational", 1 + bnb::kRelDim, flags)) return;
  ImGui::TableSetupScrollFreeze(1, 1);
  ImGui::TableSetupColumn(T("arena.ship"));
  for (int c = 0; c < bnb::kRelDim; ++c) ImGui::TableSetupColumn(bnb::kRelNames[c]);
  ImGui::TableNextRow(ImGuiTableRowFlags_Headers);
  for (int c = 0; c <= bnb::kRelDim; ++c) {
    ImGui::TableSetColumnIndex(c);
    ImGui::TableHeader(ImGui::TableGetColumnName(c));
    tooltip(T(c == 0 ? "arena.other_ship" : kRelHelp[c - 1]));
  }
  int rows = 0;
  for (int j = 0; j < kSlots; ++j) {
    if (j == sel || !u.view.ships[j].present) continue;
    ++rows;
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextColored(
        ImGui::ColorConvertU32ToFloat4(arena_team_colour(j / bnb::kSlotsPerTeam, dark)), "%d%s", j,
        u.view.ships[j].alive ? "" : (" (" + std::string(T("arena.dead")) + ")").c_str());
    for (int c = 0; c < bnb::kRelDim; ++c) {
      ImGui::TableNextColumn();
      ImGui::Text("%+.3f", rel[j][c]);
    }
  }
  ImGui::EndTable();
  u.inspector_rows = rows;
}

}  // namespace poslab::app
