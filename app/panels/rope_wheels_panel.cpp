// The rotary-wheels lab: one dial per RoPE frequency pair, its hand at angle m*theta_i,
// with the controls that change the frequencies (base, head dim, layout, context
// extension) and the long-range decay of a fixed query/key score. All numbers come from
// core/rope; this file only lays them out and draws them.
// Sections: helpers (colours, position and command text) | RopeWheelsPanel: presets,
// checks and the frame | controls | view: dials (fitted to the pane, in bands), pair
// details, decay plot.
#include <imgui.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <string>
#include <vector>

#include "app/app_context.hpp"
#include "app/gfx/dial_faces.hpp"
#include "app/gfx/opaque_rect.hpp"
#include "app/panels/panels.hpp"
#include "app/widgets.hpp"
#include "app/widgets/control_column.hpp"
#include "app/widgets/drawn_numbers.hpp"
#include "app/widgets/plot.hpp"
#include "app/widgets/rope_controls.hpp"
#include "app/widgets/theme_colour.hpp"
#include "app/widgets/tr_args.hpp"
#include "app/widgets/tr_format.hpp"
#include "app/widgets/tr_label.hpp"
#include "app/widgets/wrapped_text.hpp"
#include "core/common/charconv.hpp"
#include "core/common/errors.hpp"
#include "core/rope/rope.hpp"
#include "core/rope/wheels_lab.hpp"
#include "io/labjson/lab_csv.hpp"

namespace poslab::app {
namespace {

constexpr double kTwoPi = 2.0 * std::numbers::pi;

// Values derived from the settings, recomputed only when the RoPE parameters change.
struct WheelsDerived {
  RopeParams params;  // the parameters these values belong to
  bool valid = false;
  Eigen::VectorXd inv0, inv;    // original and scaled inverse frequencies, (P,)
  Eigen::VectorXd turns;        // r_i = L / lambda_i, (P,)
  Eigen::VectorXd keep;         // YaRN gamma_i, (P,) (empty unless yarn)
  std::vector<PairBand> bands;  // per pair
  WheelsDecay decay;            // score against distance, with and without the extension (core)
  WheelsHands hands;            // cos/sin tables of the hands and trails (core), per frame
  double decay_max = 0;
  DecayVectors decay_vectors = DecayVectors::ones;
};

// The panel's UI state: the lab settings (what presets capture) and the cache.
struct WheelsUi {
  WheelsLabSettings lab;
  WheelsDerived derived;
  int dials_laid_out = 0;   // for check_state: every pair must get a dial
  float dial_drawn_px = 0;  // the fitted dial diameter last drawn, unscaled px (the slider says it)
  gfx::DialFaces faces;     // the dials' faces and rings, one textured quad each
};

// Ring colours (darker on the light theme, see theme_colour).
ImU32 band_colour(PairBand band) {
  switch (band) {
    case PairBand::kept:
      return theme_colour(IM_COL32(80, 200, 120, 255));
    case PairBand::blended:
      return theme_colour(IM_COL32(240, 170, 50, 255));
    case PairBand::interpolated:
      return theme_colour(IM_COL32(90, 140, 255, 255));
  }
  return IM_COL32_WHITE;
}

const char* band_key(PairBand band) {
  return band == PairBand::kept      ? "wheels.kept"
         : band == PairBand::blended ? "wheels.blended"
                                     : "wheels.interpolated";
}

// The command printing the decay plot's numbers (every parameter that changes them).
std::string decay_cli_hint(const WheelsLabSettings& s) {
  WheelsLabSettings k;
  k.rope = s.rope;
  k.decay_vectors = s.decay_vectors;
  k.decay_max_distance = s.decay_max_distance;
  return "poslab-cli rope --decay --preset '" + wheels_to_preset(k) + "'";
}

// A position as every place in the lab prints it (header, details, the command, the Share
// popup): the shortest text that reads back to the same double, so 183.105 is never shown
// as 183.104999 in one place and 183.105 in another.
std::string position_text(double v) {
  char buf[64];
  const auto fmt = std::abs(v) < 1e15 ? std::chars_format::fixed : std::chars_format::general;
  const auto [end, ec] = chars::to_chars(buf, buf + sizeof buf, v, fmt);
  return ec == std::errc() ? std::string(buf, end) : std::to_string(v);
}

// A command that wraps only between its parts (ImGui's wrapping also breaks after a '.',
// which cut "--positions 183.105" into "183." and "105"); a part wider than the line wraps
// on its own.
void command_lines(const std::vector<std::string>& parts) {
  const float right = ImGui::GetContentRegionAvail().x, space = ImGui::CalcTextSize(" ").x;
  float x = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    const float w = ImGui::CalcTextSize(parts[i].c_str()).x;
    if (i > 0 && x + space + w <= right) {
      ImGui::SameLine(0, space);
      x += space + w;
    } else {
      x = w;
    }
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    if (w > right)
      text_wrapped("%s", parts[i].c_str());
    else
      ImGui::TextUnformatted(parts[i].c_str());
    ImGui::PopStyleColor();
  }
}

std::string compact(double v) {
  char buf[32];
  if (std::abs(v) >= 1e5 || (std::abs(v) < 1e-2 && v != 0)) {
    // Short scientific form ("1.6e5") so labels fit under small dials.
    const int e = static_cast<int>(std::floor(std::log10(std::abs(v))));
    std::snprintf(buf, sizeof buf, "%.1fe%d", v / std::pow(10.0, e), e);
  } else if (std::abs(v) >= 100)
    std::snprintf(buf, sizeof buf, "%.0f", v);
  else
    std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

class RopeWheelsPanel final : public Panel {
 public:
  const char* id() const override { return kWheelsLabName; }
  const char* title() const override { return "Rotary wheels"; }
  std::string preset() const override { return wheels_to_preset(ui_.lab); }
  void load_preset(const std::string& text) override {
    ui_.lab = wheels_from_preset(text);
    ui_.derived.valid = false;
  }
  bool animating() const override { return ui_.lab.playing; }

  std::vector<std::string> check_presets() const override {
    return {"rope?dim=512&pos=10000000",
            "rope?dim=2&base=2&trail=64",
            "rope?dim=512&scaling=yarn&factor=1024&L=1&pair=255",
            "rope?dim=128&base=500000&scaling=llama3&factor=8&L=8192&pos=1e6",
            "rope?scaling=dynamic&cur=1000000000&factor=1024",
            "rope?layout=interleaved&rotary=0.25&log=1&play=1&speed=1000000&dial=24",
            "rope?dim=512&base=1000000000000&dial=256&qk=random&decay_max=10000000",
            "rope?scaling=ntk&factor=16&dim=64&pair=31",
            "rope?scaling=linear&factor=4"};
  }

  std::string check_state() const override {
    const int pairs = rope_num_pairs(ui_.lab.rope);
    const WheelsDerived& d = ui_.derived;
    if (!d.valid) return "derived values were never computed";
    if (d.inv.size() != pairs)
      return "inv_freq has " + std::to_string(d.inv.size()) + " entries, want " +
             std::to_string(pairs);
    if (ui_.dials_laid_out != pairs)
      return "laid out " + std::to_string(ui_.dials_laid_out) + " dials for " +
             std::to_string(pairs) + " pairs";
    for (int i = 0; i < pairs; ++i)
      if (!std::isfinite(d.inv[i]) || d.inv[i] <= 0)
        return "inv_freq[" + std::to_string(i) + "] is not a positive number";
    for (double v : d.decay.scaled)
      if (!std::isfinite(v)) return "decay curve has a non-finite value";
    if (ui_.lab.selected_pair >= pairs) return "selected pair out of range";
    if (drawn_numbers_wanted()) record_numbers();
    return {};
  }

  bool controls_folded_ = false;  // the control column folded to a strip (small windows)

  void draw(AppContext& ctx) override {
    ctx_ = &ctx;
    WheelsLabSettings& s = ui_.lab;
    advance_animation(ctx);
    const float scale = ctx.ui_scale();
    const WheelsLabSettings before = s;
    if (begin_control_column(ctx, "##controls", 380.0f * scale, controls_folded_))
      draw_controls(s, scale);
    end_control_column();
    // Validate cross-field rules (beta order...) before using the new values; keep the
    // last good parameters if they fail, and say why.
    if (!(s.rope == before.rope)) {
      try {
        rope_validate(s.rope);
      } catch (const Error& e) {
        ctx.report_error(ctx.tr("title.rope"), tr_error(ctx, e));
        s.rope = before.rope;
      }
    }
    s.selected_pair = std::min(s.selected_pair, rope_num_pairs(s.rope) - 1);
    recompute_if_needed();
    ImGui::SameLine();
    ImGui::BeginChild("##view", ImVec2(0, 0), false);
    draw_view(s, scale);
    ImGui::EndChild();
    view_rect_ = last_item_rect();
  }

  // The dials, the pair details and the decay plot: `poslab-cli rope --decay` at position m.
  std::vector<std::string> cli_args() const override {
    return {"rope",        "--decay",
            "--preset",    wheels_to_preset(ui_.lab),
            "--positions", position_text(ui_.lab.position)};
  }
  LabNumbers numbers() const override {
    const io::Json j = io::rope_lab_json(ui_.lab, {ui_.lab.position}, true);
    return LabNumbers::of(io::dump_json(j, 2) + "\n", io::rope_lab_csv(j));
  }
  ViewRect main_view_rect() const override { return view_rect_; }

 private:
  // What the dials, the pair details and the decay plot show, with the CLI call printing it.
  void record_numbers() const {
    const WheelsDerived& d = ui_.derived;
    const WheelsLabSettings& s = ui_.lab;
    auto vec = [](const Eigen::VectorXd& v) { return std::vector<double>(v.begin(), v.end()); };
    const int i = s.selected_pair;
    const std::string preset = wheels_to_preset(s);
    record_drawn_numbers(
        kWheelsLabName, preset,
        {"rope", "--decay", "--preset", preset, "--positions", position_text(s.position)},
        {{"inv_freq", vec(d.inv)},
         {"inv_freq_original", vec(d.inv0)},
         {"turns_in_context", vec(d.turns)},
         {"attention_scale", rope_attention_scale(s.rope)},
         {"effective_base", rope_effective_base(s.rope)},
         {"angles/0/angles/" + std::to_string(i), s.position * d.inv[i]},
         {"decay/deltas", d.decay.deltas},
         {"decay/score", d.decay.scaled},
         {"decay/score_without_scaling", d.decay.original}});
  }

  void advance_animation(AppContext& ctx) {
    WheelsLabSettings& s = ui_.lab;
    if (!s.playing || ctx.capturing()) return;  // a picture's extra frame keeps m
    const double dt =
        ctx.headless() ? 1.0 / 60.0 : std::min(0.1, static_cast<double>(ImGui::GetIO().DeltaTime));
    // Kept to a millionth of a position, so the playing m reads the same everywhere.
    s.position = std::min(WheelsLabSettings::position_range.hi,
                          std::round((s.position + s.speed * dt) * 1e6) / 1e6);
    if (s.position >= WheelsLabSettings::position_range.hi) s.playing = false;
  }

  void recompute_if_needed() {
    WheelsDerived& d = ui_.derived;
    const WheelsLabSettings& s = ui_.lab;
    if (d.valid && d.params == s.rope && d.decay_max == s.decay_max_distance &&
        d.decay_vectors == s.decay_vectors)
      return;
    d.params = s.rope;
    d.inv0 = rope_inv_freq_original(s.rope);
    d.inv = rope_inv_freq(s.rope);
    d.turns = rope_turns_in_context(s.rope);
    d.keep = s.rope.scaling == RopeScaling::yarn ? rope_yarn_keep(s.rope) : Eigen::VectorXd();
    d.bands = rope_pair_bands(s.rope);
    d.decay = wheels_decay(s);
    d.hands = WheelsHands(s.rope);
    d.decay_max = s.decay_max_distance;
    d.decay_vectors = s.decay_vectors;
    d.valid = true;
  }

  const char* T(const char* key) const { return ctx_->tr(key); }
  std::string L(const char* key) const { return tr_id(*ctx_, key); }

  void draw_controls(WheelsLabSettings& s, float scale) {
    RopeParams& r = s.rope;
    ImGui::PushItemWidth(200.0f * scale);
    ImGui::TextUnformatted(T("wheels.position"));
    slider_double(L("wheels.position_m").c_str(), s.position, WheelsLabSettings::position_range,
                  "%.6g", s.log_slider);
    tooltip(T("wheels.position_m_tip"));
    ImGui::InputDouble(L("wheels.exact_m").c_str(), &s.position, 1.0, 100.0, "%.10g");
    s.position = std::clamp(s.position, WheelsLabSettings::position_range.lo,
                            WheelsLabSettings::position_range.hi);
    tooltip(T("wheels.exact_m_tip"));
    ImGui::Checkbox(L("wheels.log_slider").c_str(), &s.log_slider);
    tooltip(T("wheels.log_slider_tip"));
    ImGui::SameLine();
    if (ImGui::Button(
            (std::string(T(s.playing ? "wheels.pause" : "wheels.play")) + "###play").c_str()))
      s.playing = !s.playing;
    tooltip(T("wheels.play_tip"));
    ImGui::SameLine();
    if (ImGui::Button("m = 0")) s.position = 0;
    tooltip(T("wheels.m_zero_tip"));
    const std::string speed_fmt = "%.3g " + as_format_text(T("wheels.pos_per_s"));
    slider_double(L("wheels.speed").c_str(), s.speed, WheelsLabSettings::speed_range,
                  speed_fmt.c_str(), true);
    tooltip(T("wheels.speed_tip"));

    ImGui::Separator();
    ImGui::TextUnformatted(T("wheels.frequencies"));
    rope_controls(*ctx_, r, {}, scale);

    ImGui::Separator();
    ImGui::TextUnformatted(T("wheels.view"));
    slider_int(L("wheels.trail").c_str(), s.trail, WheelsLabSettings::trail_range, false,
               T("wheels.trail_tip"));
    slider_double(L("wheels.dial_size").c_str(), s.dial_size, WheelsLabSettings::dial_size_range,
                  "%.0f px", false);
    tooltip(T("wheels.dial_size_tip"));
    // The slider sets the smallest size; the dials grow to fill the pane: say what is drawn.
    if (ui_.dial_drawn_px > static_cast<float>(s.dial_size) + 0.5f)
      wrapped_text(tr_args(T("wheels.dial_drawn"),
                           {{"px", std::to_string(std::lround(ui_.dial_drawn_px))}}));
    int qk = static_cast<int>(s.decay_vectors);
    radio_row(qk, {{L("wheels.qk_ones"), T("wheels.qk_ones_tip")},
                   {L("wheels.qk_random"), T("wheels.qk_random_tip")}});
    s.decay_vectors = static_cast<DecayVectors>(qk);
    slider_double(L("wheels.decay_range").c_str(), s.decay_max_distance,
                  WheelsLabSettings::decay_max_distance_range, "%.6g", true);
    tooltip(T("wheels.decay_range_tip"));
    ImGui::PopItemWidth();
  }

  void draw_view(WheelsLabSettings& s, float scale) {
    const WheelsDerived& d = ui_.derived;
    const RopeParams& r = s.rope;
    const int P = rope_num_pairs(r);
    text_wrapped("m = %s   |   %d %s, R = %d / D = %d %s   |   %s",
                 position_text(s.position).c_str(), P, T("wheels.pairs"), rope_rotary_dim(r),
                 r.head_dim, T("wheels.dims_rotate"), T("wheels.orientation"));
    if (r.scaling != RopeScaling::none) {
      for (PairBand b : {PairBand::kept, PairBand::blended, PairBand::interpolated}) {
        ImGui::TextColored(ImColor(band_colour(b)), "%s", T(band_key(b)));
        ImGui::SameLine();
      }
      ImGui::TextDisabled("%s", T("wheels.ring_legend"));
    }
    if (r.scaling != RopeScaling::none || s.position > r.original_context - 1)
      text_wrapped(
          "%s",
          tr_args(T("wheels.trained_arc"), {{"L", std::to_string(r.original_context)}}).c_str());
    // The pair details and the decay plot below the dials: 250 px, at most half the height
    // left (at UI scale 2 in 1600x1000 the lab has 690 px, not the page it scrolled in).
    const float bottom_h = std::min(250.0f * scale, 0.5f * ImGui::GetContentRegionAvail().y);
    ImGui::BeginChild(
        "##dials", ImVec2(0, std::max(120.0f * scale, ImGui::GetContentRegionAvail().y - bottom_h)),
        true, ImGuiWindowFlags_HorizontalScrollbar);
    if (ImGui::IsWindowHovered() && ImGui::GetIO().KeyCtrl && ImGui::GetIO().MouseWheel != 0.0f)
      s.dial_size =
          std::clamp(s.dial_size * std::pow(1.15, ImGui::GetIO().MouseWheel),
                     WheelsLabSettings::dial_size_range.lo, WheelsLabSettings::dial_size_range.hi);
    draw_dials(s, d, scale);
    ImGui::EndChild();
    // The pair's details beside the decay plot: 360 px, less where the plot would get less
    // than its smallest width with its pane's padding and scroll bar (at UI scale 2 the
    // details took 720 of 764 px and cut the plot off); narrower, they scroll across.
    const ImGuiStyle& st = ImGui::GetStyle();
    const float decay_min =
        kPlotMinWidth * scale + 2 * st.WindowPadding.x + st.ScrollbarSize + st.ItemSpacing.x;
    const float pair_w =
        std::clamp(ImGui::GetContentRegionAvail().x - decay_min, 120.0f * scale, 360.0f * scale);
    ImGui::BeginChild("##pair", ImVec2(pair_w, 0), true, ImGuiWindowFlags_HorizontalScrollbar);
    draw_pair_details(s, d);
    ImGui::EndChild();
    ImGui::SameLine();
    ImGui::BeginChild("##decay", ImVec2(0, 0), true);
    draw_decay(s, d, scale);
    ImGui::EndChild();
  }

  // Many pairs are shown in three bands of about equal size, fast (short wavelengths) to
  // slow, each under a caption; a few pairs form one grid. Returns (first, end) per band.
  static std::vector<std::pair<int, int>> dial_bands(int P) {
    if (P <= kUnbandedPairs) return {{0, P}};
    const int a = (P + 2) / 3, b = (2 * P + 2) / 3;
    return {{0, a}, {a, b}, {b, P}};
  }
  static constexpr int kUnbandedPairs = 16;

  // The dial diameter: the chosen size, grown (up to 5x, 360 px) while every dial still fits
  // the pane without scrolling, so 8 dials fill a projector's pane instead of a corner of it.
  static float fitted_dial_size(int P, float chosen, float scale, ImVec2 pane, float bands) {
    const ImGuiStyle& st = ImGui::GetStyle();
    const float line = ImGui::GetTextLineHeight();
    const float caption_h = bands > 1 ? bands * ImGui::GetTextLineHeightWithSpacing() : 0.0f;
    const float cap = std::min(360.0f * scale, 5.0f * chosen);
    for (float t = cap; t > chosen; t -= 4.0f * scale) {
      const int cols = std::max(1, static_cast<int>((pane.x + st.ItemSpacing.x) /
                                                    (t + 14.0f * scale + st.ItemSpacing.x)));
      const int rows = (P + cols - 1) / cols + static_cast<int>(bands) - 1;  // partial rows
      const float h = static_cast<float>(rows) * (t + line * 2 + 10.0f * scale + st.ItemSpacing.y);
      if (h + caption_h <= pane.y) return t;
    }
    return chosen;
  }

  void draw_dials(WheelsLabSettings& s, const WheelsDerived& d, float scale) {
    const int P = static_cast<int>(d.inv.size());
    const std::vector<std::pair<int, int>> bands = dial_bands(P);
    // The pane's visible width, not GetContentRegionAvail's: in a window that scrolls
    // sideways ImGui 1.86 widens the work rect to last frame's content, so a caption wrapped
    // there (or a grid sized there) kept its own width, clipped, with a scrollbar (scale 2).
    const float right = ImGui::GetWindowContentRegionMax().x + ImGui::GetScrollX();
    const ImVec2 pane(right - ImGui::GetCursorPosX(), ImGui::GetContentRegionAvail().y);
    const float size = fitted_dial_size(P, static_cast<float>(s.dial_size) * scale, scale, pane,
                                        static_cast<float>(bands.size()));
    ui_.dial_drawn_px = size / scale;
    const float cell_w = size + 14.0f * scale,
                cell_h = size + ImGui::GetTextLineHeight() * 2 + 10.0f * scale;
    const float stride = cell_w + ImGui::GetStyle().ItemSpacing.x;  // SameLine adds the spacing
    const int cols =
        std::max(1, static_cast<int>((pane.x + ImGui::GetStyle().ItemSpacing.x) / stride));
    ui_.dials_laid_out = 0;
    const bool scaled = s.rope.scaling != RopeScaling::none;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImU32 face = ImGui::GetColorU32(ImGuiCol_FrameBg),
                rim = ImGui::GetColorU32(ImGuiCol_Border);
    const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text),
                dim_text = ImGui::GetColorU32(ImGuiCol_TextDisabled);
    // Faces and rings are baked once (gfx/dial_faces.hpp): style 0 the plain rim, 1 + band
    // the band colours. They go to channel 0 (one texture, one draw call), everything that
    // moves to channel 1 on top, the centre dots (same texture) to channel 2 over the
    // hands: three draw calls, the texture and the font atlas never alternate.
    const float rad = size * 0.5f;
    ui_.faces.prepare(rad, face,
                      {{rim, 1.0f},
                       {band_colour(PairBand::kept), 3.0f * scale},
                       {band_colour(PairBand::blended), 3.0f * scale},
                       {band_colour(PairBand::interpolated), 3.0f * scale}},
                      2.5f * scale, text,
                      ImGui::GetColorU32(ImGuiCol_WindowBg, 1.0f) | IM_COL32_A_MASK);
    // At an extrapolation (past the trained length L, or with a context extension) the
    // slow pairs' dials mark the angles training showed them.
    const double L = s.rope.original_context;
    const bool trained_arcs = scaled || s.position > L - 1;
    const ImU32 arc_colour = ImGui::GetColorU32(ImGuiCol_Text, 0.28f);
    WheelsHands& hands = ui_.derived.hands;
    hands.set_position(s.position, s.trail);
    const RowMatrix &hand_cos = hands.hands().cos(), &hand_sin = hands.hands().sin();
    dl->ChannelsSplit(3);
    // The faces are opaque (baked over the window's background): drawn without blending.
    dl->ChannelsSetCurrent(0);
    gfx::begin_without_blending(dl);
    for (size_t band = 0; band < bands.size(); ++band) {
      const auto [first, end] = bands[band];
      if (bands.size() > 1) {
        // "Fast pairs 0-21: wavelength 6.28 to 151 tokens": each band says what its hands do.
        static const char* const kCaptions[] = {"wheels.band_fast", "wheels.band_middle",
                                                "wheels.band_slow"};
        dl->ChannelsSetCurrent(1);
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
        ImGui::PushTextWrapPos(right);
        text_wrapped("%s %d-%d: λ %s - %s %s", T(kCaptions[band]), first, end - 1,
                     compact(kTwoPi / d.inv[first]).c_str(),
                     compact(kTwoPi / d.inv[end - 1]).c_str(), T("wheels.tokens"));
        ImGui::PopTextWrapPos();
        ImGui::PopStyleColor();
      }
      const int band_pairs = end - first;
      const int rows = (band_pairs + cols - 1) / cols;
      ui_.dials_laid_out += std::min(band_pairs, rows * cols);
      ImGuiListClipper clipper;
      clipper.Begin(rows, cell_h);
      while (clipper.Step()) {
        for (int row = clipper.DisplayStart; row < clipper.DisplayEnd; ++row) {
          for (int col = 0; col < cols; ++col) {
            const int i = first + row * cols + col;
            if (i >= end) break;
            if (col > 0) ImGui::SameLine();
            ImGui::PushID(i);
            const ImVec2 o = ImGui::GetCursorScreenPos();
            if (ImGui::InvisibleButton("dial", ImVec2(cell_w, cell_h))) s.selected_pair = i;
            const bool hovered = ImGui::IsItemHovered();
            ImGui::PopID();
            const ImVec2 c(o.x + rad + 5.0f * scale, o.y + rad + 3.0f * scale);
            dl->ChannelsSetCurrent(0);
            ui_.faces.draw(dl, c, scaled ? 1 + static_cast<int>(d.bands[i]) : 0);
            dl->ChannelsSetCurrent(1);
            if (i == s.selected_pair) dl->AddCircle(c, rad + 3.0f * scale, text, 0, 2.0f);
            // Past the trained length: the arc of angles this pair reached in training
            // (positions 0 .. L-1, at its original frequency), where it does not close.
            if (trained_arcs && d.inv0[i] * (L - 1) < kTwoPi) {
              dl->PathArcTo(c, 0.84f * rad, -static_cast<float>(d.inv0[i] * (L - 1)), 0.0f, 32);
              dl->PathStroke(arc_colour, 0, std::max(2.0f, 0.14f * rad));
            }
            // Trail: the hand at the previous `trail` positions (table row k = m - k), fading.
            for (int k = s.trail; k >= 1; --k) {
              if (s.position - k < 0) continue;
              const float alpha =
                  0.85f * (1.0f - static_cast<float>(k) / static_cast<float>(s.trail + 1));
              // Dots are tiny: plain quads (2 triangles, no anti-aliasing fringe) keep
              // 256 dials x 64 trail dots cheap for a software rasteriser.
              const ImVec2 p(c.x + 0.8f * rad * static_cast<float>(hand_cos(k, i)),
                             c.y - 0.8f * rad * static_cast<float>(hand_sin(k, i)));
              const float h = std::max(1.5f, rad * 0.07f);
              dl->AddRectFilled(ImVec2(p.x - h, p.y - h), ImVec2(p.x + h, p.y + h),
                                rope_pair_colour(i, P, alpha));
            }
            if (scaled) {
              const RopeTable& plain = hands.plain();
              dl->AddLine(c,
                          ImVec2(c.x + 0.95f * rad * static_cast<float>(plain.cos()(0, i)),
                                 c.y - 0.95f * rad * static_cast<float>(plain.sin()(0, i))),
                          IM_COL32(160, 160, 160, 200), 1.5f * scale);
            }
            dl->AddLine(c,
                        ImVec2(c.x + 0.95f * rad * static_cast<float>(hand_cos(0, i)),
                               c.y - 0.95f * rad * static_cast<float>(hand_sin(0, i))),
                        rope_pair_colour(i, P), 2.5f * scale);
            dl->ChannelsSetCurrent(2);
            ui_.faces.draw_dot(dl, c);
            dl->ChannelsSetCurrent(1);
            char label[64];
            std::snprintf(label, sizeof label, "i=%d", i);
            dl->AddText(ImVec2(o.x + 2, o.y + size + 6.0f * scale), hovered ? text : dim_text,
                        label);
            // With an extension the hand turns at theta'_i: label its wavelength lambda'.
            const std::string lam = (scaled ? "λ'=" : "λ=") + compact(kTwoPi / d.inv[i]);
            dl->AddText(ImVec2(o.x + 2, o.y + size + 6.0f * scale + ImGui::GetTextLineHeight()),
                        dim_text, lam.c_str());
            if (hovered) {
              if (scaled)
                tooltip_showf(
                    "%s %d: θ = %.6g -> θ' = %.6g %s\n%s λ = %.6g -> λ' = %.6g %s\n"
                    "r = L/λ = %.4g %s\n%s",
                    T("wheels.pair"), i, d.inv0[i], d.inv[i], T("wheels.rad_per_token"),
                    T("wheels.wavelength"), kTwoPi / d.inv0[i], kTwoPi / d.inv[i],
                    T("wheels.tokens"), d.turns[i], T("wheels.turns_in_l_orig"),
                    T("wheels.click_details"));
              else
                tooltip_showf("%s %d: θ = %.6g %s\n%s λ = %.6g %s\nr = L/λ = %.4g %s\n%s",
                              T("wheels.pair"), i, d.inv[i], T("wheels.rad_per_token"),
                              T("wheels.wavelength"), kTwoPi / d.inv[i], T("wheels.tokens"),
                              d.turns[i], T("wheels.turns_in_l"), T("wheels.click_details"));
            }
          }
        }
      }
      clipper.End();
    }
    dl->ChannelsSetCurrent(0);
    gfx::end_without_blending(dl);
    dl->ChannelsMerge();
  }

  void draw_pair_details(const WheelsLabSettings& s, const WheelsDerived& d) {
    const int i = s.selected_pair;
    const RopeParams& r = s.rope;
    const auto [a, b] = rope_pair_dims(r, i);
    ImGui::Text("%s %d  (%s %d, %d)", T("wheels.pair"), i, T("wheels.dims"), a, b);
    ImGui::Separator();
    const double angle = s.position * d.inv[i];
    const double wrapped = std::fmod(angle, kTwoPi);
    ImGui::Text("theta_i      = %.8g %s", d.inv0[i], T("wheels.rad_per_token"));
    ImGui::Text("lambda_i     = %.8g %s", kTwoPi / d.inv0[i], T("wheels.tokens"));
    if (r.scaling != RopeScaling::none) {
      ImGui::Text("theta'_i     = %.8g (x%.4g)", d.inv[i], d.inv[i] / d.inv0[i]);
      ImGui::Text("lambda'_i    = %.8g %s", kTwoPi / d.inv[i], T("wheels.tokens"));
      ImGui::Text("%-12s = %s", T("wheels.band"), T(band_key(d.bands[i])));
      if (d.keep.size() > 0) ImGui::Text("YaRN gamma_i = %.4f", d.keep[i]);
    }
    ImGui::Text("r_i = L/lambda_i = %.6g %s", d.turns[i], T("wheels.turns_in_l"));
    ImGui::Separator();
    ImGui::Text("angle m*theta = %.10g rad", angle);
    ImGui::Text("mod 2pi       = %.6f rad (%.3f deg)", wrapped, wrapped * 180.0 / std::numbers::pi);
    ImGui::Text("%s = %.0f", T("wheels.full_turns"), std::floor(angle / kTwoPi));
    command_lines({"poslab-cli rope",
                   "--preset '" + wheels_to_preset(WheelsLabSettings{.rope = r}) + "'",
                   "--positions " + position_text(s.position)});
  }

  void draw_decay(const WheelsLabSettings& s, const WheelsDerived& d, float scale) {
    // Title and command wrapped: in a narrow pane (1024x700) they ran past its right edge.
    // The plot takes the height the wrapped command leaves.
    text_wrapped("%s", T("wheels.decay_title"));
    tooltip(T("wheels.decay_tip"));
    const std::string hint = decay_cli_hint(s);
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float hint_h = ImGui::CalcTextSize(hint.c_str(), nullptr, false, avail.x).y +
                         ImGui::GetStyle().ItemSpacing.y;
    const bool scaled = s.rope.scaling != RopeScaling::none;
    PlotSpec spec;
    spec.id = "decay";
    spec.scale = scale;
    spec.size = ImVec2(0, std::max(60.0f * scale, avail.y - hint_h));
    spec.x.label = std::string("d");  // moved in: GCC 12's -Wrestrict misfires on `= "d"` here
    if (scaled)
      spec.series.push_back({.label = T("wheels.plain_rope"),
                             .y = d.decay.original,
                             .x = d.decay.deltas,
                             .colour = IM_COL32(150, 150, 150, 200),
                             .thickness = 1.0f});
    spec.series.push_back({.label = T(scaled ? "wheels.with_extension" : "wheels.score"),
                           .y = d.decay.scaled,
                           .x = d.decay.deltas,
                           .colour = theme_colour(IM_COL32(255, 170, 60, 255))});
    spec.legend = scaled;
    plot(spec);
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    wrapped_text(hint);
    ImGui::PopStyleColor();
  }

  WheelsUi ui_;
  ViewRect view_rect_;
  const AppContext* ctx_ = nullptr;  // set at the start of draw(): the interface language
};

}  // namespace

std::unique_ptr<Panel> make_rope_wheels_panel() {
  return std::make_unique<RopeWheelsPanel>();
}

}  // namespace poslab::app
