// The dream lab's drawing pieces (dreams_views.hpp): maps, error curves, token strip,
// attention and the comparison of the position variants. Every number comes from
// core/wm/dream_lab; the texts from assets/i18n/<lang>/dreams.toml.
#include "app/panels/dreams_views.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "app/widgets/plot.hpp"
#include "app/widgets/token_strip.hpp"
#include "app/widgets/tr_args.hpp"
#include "app/widgets/wrapped_text.hpp"
#include "core/common/errors.hpp"
#include "core/wm/dream_lab_model.hpp"
#include "io/data/data_dir.hpp"
#include "io/dreams/dream_lab_io.hpp"

namespace poslab::app {
namespace {

ArenaFrame frame_from_tokens(const std::vector<wm::DreamFrame>& frames, int at, bool dream,
                             int trail) {
  const int first = std::max(0, at - trail);
  std::vector<float> rows;
  rows.reserve(static_cast<size_t>(at - first + 1) * wm::kFrameValues);
  for (int i = first; i <= at; ++i) {
    const auto& t = dream ? frames[i].dream_tokens : frames[i].real_tokens;
    rows.insert(rows.end(), t.begin(), t.end());
  }
  return arena_frame_from_tokens(rows, at - first, at - first);
}

}  // namespace

int dreams_shown_frame(const DreamsUi& u) {
  const int newest = static_cast<int>(u.runner.timeline().frames.size()) - 1;
  return u.lab.cursor < 0 ? newest : std::min(u.lab.cursor, newest);
}

void dreams_section(const char* text) {
  ImGui::Separator();
  ImGui::TextUnformatted(text);
}

std::string dreams_label(const AppContext& ctx, const char* key, const char* id) {
  return std::string(ctx.tr(key)) + "###" + id;
}

// ---- maps ---------------------------------------------------------------------------------
void dreams_maps(AppContext& ctx, DreamsUi& u, float side) {
  const auto& fr = u.runner.timeline().frames;
  const int t = dreams_shown_frame(u);
  const bool has_dream = u.model != nullptr && t >= u.runner.timeline().start;
  ArenaViewOptions opt;
  opt.selected = u.lab.selected;
  opt.helm = u.lab.helm;
  opt.dark = ctx.dark_theme();
  opt.ui_scale = ctx.ui_scale();
  ArenaTrailHistory none;
  ArenaFrame real = frame_from_tokens(fr, t, false, 12);
  ArenaFrame exact = arena_frame_from_sim(fr[t].real, &none, 0);
  real.bullets = exact.bullets;  // bullets live only in the simulator
  ArenaFrame dream = frame_from_tokens(fr, t, true, 12);
  ArenaViewInput in;
  if (u.lab.view == wm::DreamView::side) {
    ImGui::BeginGroup();
    ImGui::TextUnformatted(ctx.tr("dreams.map_real"));
    const ArenaLayer rl[] = {{&real, ArenaLayerStyle::solid, 1.0f}};
    in = u.real_view.draw(rl, opt, side);
    ImGui::EndGroup();
    ImGui::SameLine();
    ImGui::BeginGroup();
    ImGui::TextUnformatted(ctx.tr(has_dream ? "dreams.map_dream" : "dreams.map_no_model"));
    if (has_dream) {
      const ArenaLayer dl[] = {{&dream, ArenaLayerStyle::solid, 1.0f}};
      const ArenaViewInput din = u.dream_view.draw(dl, opt, side);
      in.hovered = in.hovered || din.hovered;
    } else {
      ImGui::Dummy(ImVec2(side, side));
    }
    ImGui::EndGroup();
  } else {
    ImGui::TextUnformatted(ctx.tr("dreams.map_ghosts"));
    std::vector<ArenaLayer> layers{{&real, ArenaLayerStyle::solid, 1.0f}};
    if (has_dream) layers.push_back({&dream, ArenaLayerStyle::ghost, 0.9f});
    in = u.real_view.draw(layers, opt, side);
  }
  u.ships_drawn = u.real_view.ships_drawn();
  if (in.clicked && in.hovered_slot >= 0) u.lab.selected = in.hovered_slot;
  u.helm_keys = u.lab.helm >= 0 &&
                (in.hovered || ImGui::IsWindowFocused(ImGuiFocusedFlags_RootAndChildWindows));
  const wm::ErrorSummary& e = fr[t].error;
  if (has_dream && t > u.runner.timeline().start) {
    // Wrapped under the maps (it says these are errors of the dream, not positions).
    const std::string line =
        tr_args(ctx.tr("dreams.step_error"),
                {{"step", std::to_string(t)},
                 {"dream", std::to_string(t - u.runner.timeline().start)},
                 {"position", num_text("%.1f", static_cast<double>(e.pos_px))},
                 {"velocity", num_text("%.1f", static_cast<double>(e.vel_px_s))},
                 {"attitude", num_text("%.1f", static_cast<double>(e.att_deg))},
                 {"alive", std::to_string(e.agree_count)},
                 {"ships", std::to_string(e.present_count)}});
    const float maps_w =
        u.lab.view == wm::DreamView::side ? 2 * side + ImGui::GetStyle().ItemSpacing.x : side;
    wrapped_text(line, ImGui::GetCursorPosX() + maps_w);
  } else
    ImGui::TextDisabled(
        "%s", tr_args(ctx.tr("dreams.step_plain"),
                      {{"step", std::to_string(t)},
                       {"text", ctx.tr(t < u.runner.timeline().start ? "dreams.the_prompt"
                                                                     : "dreams.dream_start")}})
                  .c_str());
}

// ---- error curves -------------------------------------------------------------------------
void dreams_error_plot(AppContext& ctx, DreamsUi& u) {
  const wm::DreamCurves c = wm::dream_curves(u.runner.timeline());
  const char* metrics[] = {ctx.tr("dreams.metric_pos"), ctx.tr("dreams.metric_vel"),
                           ctx.tr("dreams.metric_att"), ctx.tr("dreams.metric_health"),
                           ctx.tr("dreams.metric_power")};
  ImGui::SetNextItemWidth(200 * ctx.ui_scale());
  ImGui::Combo(dreams_label(ctx, "dreams.metric", "metric").c_str(), &u.metric, metrics, 5);
  auto pick = [&](const std::vector<wm::ErrorSummary>& v) {
    std::vector<double> y;
    for (const auto& e : v) {
      const double m[] = {e.pos_px, e.vel_px_s, e.att_deg, e.health, e.power};
      y.push_back(e.alive_count > 0 ? m[u.metric] : std::nan(""));
    }
    return y;
  };
  u.curves[0] = pick(c.dream);
  u.curves[1] = pick(c.copy_last);
  u.curves[2] = pick(c.const_velocity);
  PlotSpec spec;
  spec.id = "dream_errors";
  spec.size = ImVec2(ImGui::GetContentRegionAvail().x, 300 * ctx.ui_scale());
  spec.x.label = ctx.tr("dreams.axis_horizon");
  spec.y.label = metrics[u.metric];
  spec.scale = ctx.ui_scale();
  if (u.model)
    spec.series.push_back(
        {ctx.tr("dreams.series_dream"), u.curves[0], {}, 1, 1, IM_COL32(90, 200, 255, 255), 2.0f});
  spec.series.push_back(
      {ctx.tr("dreams.series_copy_last"), u.curves[1], {}, 1, 1, IM_COL32(180, 180, 180, 255)});
  spec.series.push_back(
      {ctx.tr("dreams.series_const_vel"), u.curves[2], {}, 1, 1, IM_COL32(255, 170, 60, 255)});
  plot(spec);
}

// ---- token strip ----------------------------------------------------------------------------
void dreams_strip(AppContext& ctx, DreamsUi& u) {
  const auto& f = u.runner.timeline().frames[dreams_shown_frame(u)];
  dreams_section(ctx.tr("dreams.strip_heading"));
  if (!u.model) {
    ImGui::TextDisabled("%s", ctx.tr("dreams.strip_no_model"));
    u.strip_steps = -1;
    return;
  }
  // Before the dream's first step the cache holds the prompt as begin() left it.
  std::vector<wm::StripToken> cached = f.strip;
  if (f.strip.empty())
    for (const auto& t : u.model->strip(f.step))
      if (t.cached) cached.push_back(t);
  TokenStripStyle style;
  style.scale = ctx.ui_scale();
  style.dark = ctx.dark_theme();
  style.max_tokens = static_cast<int>(ImGui::GetContentRegionAvail().x / (59 * ctx.ui_scale()));
  u.strip_mismatch = token_strip(ctx, cached, f.step, style);
  u.strip_steps = f.step;
}

// ---- attention --------------------------------------------------------------------------
void dreams_attention(AppContext& ctx, DreamsUi& u) {
  const auto& f = u.runner.timeline().frames[dreams_shown_frame(u)];
  dreams_section(ctx.tr("dreams.attention_heading"));
  if (!f.attention) {
    const bool dreamt = dreams_shown_frame(u) > u.runner.timeline().start;
    ImGui::TextDisabled("%s", ctx.tr(!u.model ? "dreams.attention_no_model"
                                     : dreamt ? "dreams.attention_not_reported"
                                              : "dreams.attention_prompt"));
    return;
  }
  attention_maps(ctx, *f.attention, u.lab.layer, u.lab.head, u.lab.selected, u.attention_tex,
                 ctx.ui_scale());
}

// ---- position variants compared past the context --------------------------------------------
void dreams_compare(AppContext& ctx, DreamsUi& u, const wm::DreamLabSession& session) {
  dreams_section(ctx.tr("dreams.compare_heading"));
  if (u.compared != session && !u.compare_job.running()) {
    u.compared = session;
    using Models = std::vector<std::pair<std::string, std::shared_ptr<wm::DreamModel>>>;
    auto models = std::make_shared<Models>();
    const std::string dir = io::models_dir();
    const std::string rope = wm::dream_model_path("", wm::DreamVariant::rope, dir, u.lab.size);
    const std::string abs = wm::dream_model_path("", wm::DreamVariant::recompute, dir, u.lab.size);
    std::error_code ec;
    u.compare_note.clear();
    if (!std::filesystem::exists(rope, ec) || !std::filesystem::exists(abs, ec)) {
      u.compare_note = std::string(ctx.tr("dreams.compare_needs")) + " " + rope + ", " + abs;
      return;
    }
    try {
      models->emplace_back(ctx.tr("dreams.variant_rope"),
                           io::dreams_load_model(rope, wm::DreamVariant::rope));
      models->emplace_back(ctx.tr("dreams.variant_recompute"),
                           io::dreams_load_model(abs, wm::DreamVariant::recompute));
      models->emplace_back(ctx.tr("dreams.variant_patch"),
                           io::dreams_load_model(abs, wm::DreamVariant::patch));
      models->emplace_back(ctx.tr("dreams.variant_naive"),
                           io::dreams_load_model(abs, wm::DreamVariant::naive));
    } catch (const Error& e) {
      ctx.report_error(ctx.tr("dreams.where_comparison"), e.what());
    }
    wm::DreamSessionConfig config = wm::dream_session_config(u.lab);
    const int horizon = 3 * (models->empty() ? 32 : models->front().second->context());
    u.compare_job.start("compare", [models, config, horizon](auto& control) {
      std::vector<std::pair<std::string, const wm::DreamModel*>> list;
      for (const auto& [label, m] : *models) list.emplace_back(label, m.get());
      return wm::dream_compare(config, list, horizon, control.cancel_flag());
    });
  }
  if (!u.compare_note.empty()) {
    ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "%s", u.compare_note.c_str());
    return;
  }
  if (auto out = u.compare_job.poll(ctx, true)) {
    if (out->value)
      u.comparison = std::move(*out->value);
    else if (!out->error.empty())
      ctx.report_error(ctx.tr("dreams.where_comparison"), out->error);
  }
  if (u.compare_job.running()) {
    ImGui::TextDisabled("%s", ctx.tr("dreams.compare_running"));
    return;
  }
  PlotSpec spec;
  spec.id = "dream_compare";
  // As tall as the room left on the page, at least 320 px (scaled): the legend of five
  // curves takes its rows above the data area, which keeps most of the height.
  const float line = ImGui::GetTextLineHeightWithSpacing();
  spec.size = ImVec2(ImGui::GetContentRegionAvail().x,
                     std::max(320 * ctx.ui_scale(), ImGui::GetContentRegionAvail().y - 2 * line));
  spec.x.label = ctx.tr("dreams.axis_horizon_short");
  spec.y.label = ctx.tr("dreams.metric_pos");
  spec.scale = ctx.ui_scale();
  // One colour per curve from the plots' palette (the constant-velocity baseline is the
  // fifth curve: a fifth colour, never the first one again).
  for (size_t i = 0; i < u.comparison.series.size(); ++i) {
    const std::string& label = u.comparison.series[i].label;
    spec.series.push_back({label == "constant velocity" ? ctx.tr("dreams.series_const_vel") : label,
                           u.comparison.series[i].pos_px,
                           {},
                           1,
                           1,
                           plot_series_colour(i)});
  }
  if (u.comparison.context > 0) {
    ImGui::TextUnformatted(tr_args(ctx.tr("dreams.compare_context"),
                                   {{"context", std::to_string(u.comparison.context)},
                                    {"horizon", std::to_string(u.comparison.horizon)}})
                               .c_str());
    // Where the dream outgrows the model's context: the variants part ways after it.
    spec.x_marks.push_back({static_cast<double>(u.comparison.context),
                            ImGui::GetColorU32(ImGuiCol_Text), ctx.tr("dreams.context_ends")});
  }
  if (!spec.series.empty()) plot(spec);
}

}  // namespace poslab::app
