// The KV lab's trained source (kv_trained_view.hpp): controls, job, curves, bars, bytes,
// captions and the drawn-numbers record. Every number comes from core's KvTrainedResult.
#include "app/panels/kv_trained_view.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/export/share_messages.hpp"
#include "app/panels/kv_views.hpp"
#include "app/widgets.hpp"
#include "app/widgets/drawn_numbers.hpp"
#include "app/widgets/job_status.hpp"
#include "app/widgets/plot.hpp"
#include "app/widgets/tooltip.hpp"
#include "app/widgets/tr_format.hpp"
#include "app/widgets/tr_label.hpp"
#include "core/common/errors.hpp"
#include "core/lm/lm_eval.hpp"
#include "io/labjson/kv_trained_json.hpp"
#include "io/length/length_lab_io.hpp"

namespace poslab::app {
namespace {

void kvt_draw_view(AppContext& ctx, KvTrainedView& v, float scale);  // below

ImU32 kvt_colour(const std::string& method) {
  if (method == "recompute" || method == "full") return IM_COL32(210, 210, 210, 255);
  if (method == "naive") return plot_series_colour(5);
  if (method == "reencode") return plot_series_colour(2);
  if (method == "naive_sinks") return plot_series_colour(6);
  return plot_series_colour(4);  // reencode_sinks
}

// The trained source's job, one bounded step at a time (BackgroundJob::start_steps): the
// first step validates and loads the model (unless the last result's is the same), then
// each step runs one method of the scenario; the last one hands the result over.
struct KvtJobState {
  KvTrainedSettings s;
  std::shared_ptr<const KvTrainedData> data;
  std::optional<KvTrainedRun> run;
};

std::optional<KvTrainedPtr> kvt_step(KvtJobState& st, JobControl& job) {
  if (!st.run) {
    kv_trained_validate(st.s);  // a bad setting says so before any file is read
    if (!st.data || st.data->model.id != st.s.model) {
      try {
        auto d = std::make_shared<KvTrainedData>();
        d->model = io::length_model_load(st.s.model, &d->valid);
        st.data = std::move(d);
      } catch (const FileError& e) {  // shown in place: which file, and how to get it
        auto c = std::make_shared<KvTrainedComputed>();
        c->lab = st.s;
        c->load_error = e.what();
        return c;
      }
    }
    st.run.emplace(st.s, st.data->model, st.data->valid);  // validates, checks the budget
    job.set_progress(0, st.run->steps());
    return std::nullopt;
  }
  st.run->step();
  job.set_progress(st.run->steps_done(), st.run->steps());
  if (!st.run->done()) return std::nullopt;
  auto c = std::make_shared<KvTrainedComputed>();
  c->lab = st.s;
  c->data = st.data;
  c->result = st.run->take();
  return c;
}

// Trailing mean of w values (the stream's curves); w = 1 returns v.
std::vector<double> kvt_smooth(const std::vector<double>& v, int w) {
  if (w <= 1) return v;
  std::vector<double> out(v.size());
  double sum = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    sum += v[i];
    if (i >= static_cast<size_t>(w)) sum -= v[i - static_cast<size_t>(w)];
    out[i] = sum / static_cast<double>(std::min(i + 1, static_cast<size_t>(w)));
  }
  return out;
}

std::string kvt_num(double v, bool sign = false) {
  char b[32];
  std::snprintf(b, sizeof b, sign ? "%+.3f" : "%.3f", v);
  return b;
}

// The caption: each method's bits per byte and its extra over the reference, then (stream)
// the loss at the end of the text or (stitch, rag) block 0's and the last block's key
// difference after re-encoding, all read from the result shown.
std::string kvt_caption(const AppContext& ctx, const KvTrainedResult& r) {
  const KvTrainedMethod& ref = r.methods.front();
  std::string s = r.model + ": " + ref.name + " (" + ctx.tr("kvt.reference") + ") " +
                  kvt_num(ref.mean_bits) + " " + ctx.tr("kvt.bpb");
  for (size_t k = 1; k < r.methods.size(); ++k) {
    const KvTrainedMethod& m = r.methods[k];
    s += "; " + m.name + " " + kvt_num(m.mean_bits) + " (" +
         kvt_num(m.mean_bits - ref.mean_bits, true) + ")";
  }
  s += ".";
  if (r.lab.scenario == KvTrainedScenario::stream) {
    const int T = static_cast<int>(ref.bits.size());
    s += std::string(" ") + ctx.tr("kvt.at_end") + " " + std::to_string(T / r.context) + "L:";
    for (const auto& m : r.methods)
      s += " " + m.name + " " + kvt_num(lm::lm_curve_at(m.bits, T, r.context)) + ";";
  } else if (const KvTrainedMethod* re = r.find("reencode"); re && !re->key_diff.empty()) {
    s += std::string(" ") + ctx.tr("kvt.key_diff") + ": reencode " + ctx.tr("kvt.block") + " 0 " +
         sci(re->key_diff.front()) + ", " + ctx.tr("kvt.block") + " " +
         std::to_string(re->key_diff.size() - 1) + " " + sci(re->key_diff.back()) + "; naive " +
         ctx.tr("kvt.block") + " 0 " + sci(r.find("naive")->key_diff.front()) + ".";
  }
  return s;
}

void kvt_demo_button(AppContext& ctx, KvTrainedView& v, const char* key, const char* preset) {
  if (ImGui::Button(tr_id(ctx, key).c_str())) {
    v.lab = kv_trained_from_preset(preset);
    v.failed.reset();
  }
}

void kvt_draw_curves(AppContext& ctx, KvTrainedView& v, const KvTrainedResult& r, float scale) {
  const bool stream = r.lab.scenario == KvTrainedScenario::stream;
  std::vector<std::vector<double>> ys;
  for (const auto& m : r.methods) ys.push_back(kvt_smooth(m.bits, stream ? v.smooth : 1));
  PlotSpec spec;
  spec.id = "kvt_curves";
  spec.scale = scale;
  // the stream's 8L positions get the height left; stitch and rag leave room for bytes, bars
  spec.size = ImVec2(0, stream ? std::max(240.0f * scale, ImGui::GetContentRegionAvail().y -
                                                              ImGui::GetTextLineHeightWithSpacing())
                               : 240.0f * scale);
  spec.x.label = ctx.tr("kvt.position");
  spec.y.label = ctx.tr("kvt.bits");
  if (stream)
    for (int k = 1; k <= 8; k *= 2)
      spec.x_marks.push_back({static_cast<double>(k * r.context), IM_COL32(150, 150, 150, 120),
                              (k == 1 ? std::string("L") : std::to_string(k) + "L")});
  for (size_t k = 0; k < r.methods.size(); ++k)
    spec.series.push_back({.label = r.methods[k].name,
                           .y = ys[k],
                           .x0 = static_cast<double>(r.first_position),
                           .colour = kvt_colour(r.methods[k].name),
                           .thickness = 1.3f,
                           .dashed = r.methods[k].reference});
  v.curves_drawn = static_cast<int>(spec.series.size());
  plot(spec);
}

// Per block: keys, values, hidden states of each method against the reference.
void kvt_draw_bars(AppContext& ctx, KvTrainedView& v, const KvTrainedResult& r, float scale) {
  v.bars_drawn = 0;
  if (r.methods.size() < 2 || r.methods[1].key_diff.empty()) return;
  text_wrapped("%s", ctx.tr("kvt.bars_heading"));
  if (!ImGui::BeginTable("##kvt_bars", 1 + r.layers, ImGuiTableFlags_SizingStretchSame)) return;
  ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthFixed, 150.0f * scale);
  for (int l = 0; l < r.layers; ++l)
    ImGui::TableSetupColumn((std::string(ctx.tr("kvt.block")) + " " + std::to_string(l)).c_str());
  ImGui::TableHeadersRow();
  for (size_t k = 1; k < r.methods.size(); ++k) {
    const KvTrainedMethod& m = r.methods[k];
    const std::pair<const char*, const std::vector<double>*> rows[] = {
        {"kvt.keys", &m.key_diff}, {"kvt.values", &m.value_diff}, {"kvt.hidden", &m.hidden_diff}};
    for (const auto& [key, vals] : rows) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::PushStyleColor(ImGuiCol_Text, kvt_colour(m.name));
      ImGui::Text("%s %s", m.name.c_str(), ctx.tr(key));
      ImGui::PopStyleColor();
      for (double e : *vals) {
        ImGui::TableNextColumn();
        kv_meter(e, scale);
        ++v.bars_drawn;
      }
    }
  }
  ImGui::EndTable();
}

// The predicted bytes, each tinted by the extra bits the chosen method costs over the
// reference (hover: the byte and its bits under every method).
void kvt_draw_bytes(AppContext& ctx, KvTrainedView& v, const KvTrainedResult& r, float scale) {
  v.bytes_drawn = 0;
  if (r.lab.scenario == KvTrainedScenario::stream || r.methods.size() < 2) return;
  v.colour_by = std::clamp(v.colour_by, 1, static_cast<int>(r.methods.size()) - 1);
  const KvTrainedMethod& ref = r.methods.front();
  const KvTrainedMethod& m = r.methods[static_cast<size_t>(v.colour_by)];
  ImGui::TextUnformatted(ctx.tr("kvt.bytes_heading"));
  for (size_t k = 1; k < r.methods.size(); ++k) {
    ImGui::SameLine();
    int sel = v.colour_by;
    ImGui::RadioButton(r.methods[k].name.c_str(), &sel, static_cast<int>(k));
    v.colour_by = sel;
  }
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float cw = ImGui::CalcTextSize("M").x + 6.0f * scale, ch = ImGui::GetTextLineHeight();
  const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  for (size_t t = 0; t < r.bytes.size(); ++t) {
    // on the same line as the previous byte while the next cell fits
    if (t > 0 && ImGui::GetItemRectMax().x + 2.0f * scale + cw < right)
      ImGui::SameLine(0, 2.0f * scale);
    const ImVec2 o = ImGui::GetCursorScreenPos();
    const double extra = m.bits[t] - ref.bits[t];
    const float a = static_cast<float>(std::clamp(std::abs(extra) / 4.0, 0.0, 1.0));
    const ImU32 bg = extra >= 0 ? IM_COL32(230, 80, 60, static_cast<int>(40 + 200 * a))
                                : IM_COL32(60, 160, 230, static_cast<int>(40 + 200 * a));
    dl->AddRectFilled(o, ImVec2(o.x + cw, o.y + ch), bg);
    const uint8_t b = r.bytes[t];
    char glyph[8];
    std::snprintf(glyph, sizeof glyph, "%c", (b >= 32 && b < 127) ? static_cast<char>(b) : '.');
    dl->AddText(ImVec2(o.x + 3.0f * scale, o.y), ImGui::GetColorU32(ImGuiCol_Text), glyph);
    ImGui::Dummy(ImVec2(cw, ch));
    ++v.bytes_drawn;
    if (ImGui::IsItemHovered()) {
      char line[160];
      std::snprintf(line, sizeof line, "byte %d '%s' at %lld", b, glyph,
                    static_cast<long long>(r.first_position) + t + 1);
      std::string tip = line;
      for (const auto& x : r.methods) {
        std::snprintf(line, sizeof line, "\n%s: %.3f bits (%+.3f)", x.name.c_str(), x.bits[t],
                      x.bits[t] - ref.bits[t]);
        tip += line;
      }
      tooltip_show(tip);
    }
  }
}

void kvt_record_numbers(const KvTrainedResult& r) {
  nlohmann::json n;
  n["model"] = r.model;
  n["first_position"] = r.first_position;
  n["bytes"] = std::vector<int>(r.bytes.begin(), r.bytes.end());
  for (size_t k = 0; k < r.methods.size(); ++k) {
    const KvTrainedMethod& m = r.methods[k];
    const std::string p = "methods/" + std::to_string(k);
    n[p + "/method"] = m.name;
    n[p + "/bits"] = m.bits;
    n[p + "/mean_bits"] = m.mean_bits;
    if (!m.key_diff.empty()) {
      n[p + "/key_diff"] = m.key_diff;
      n[p + "/value_diff"] = m.value_diff;
      n[p + "/hidden_diff"] = m.hidden_diff;
    }
  }
  const std::string preset = kv_trained_to_preset(r.lab);
  record_drawn_numbers("kv", preset, {"kv", "--preset", preset}, n);
}

// Takes the job's outcome when it has one: the result shown, or its error in place.
void kvt_take(AppContext& ctx, KvTrainedView& v) {
  auto out = v.job.poll(ctx);
  if (!out || out->cancelled) return;
  if (out->value) {
    v.shown = std::move(*out->value);
    v.failed.reset();
    v.last_error = v.shown->load_error;
  } else {
    v.failed = v.job_for;
    v.last_error = tr_format(ctx, out->error_message);
  }
}

}  // namespace

std::vector<std::string> kv_trained_check_presets() {
  return {"kv?weights=trained", "kv?weights=trained&model=alibi&scenario=rag",
          "kv?weights=trained&model=learned&scenario=stream&span=2&window=64"};
}

void kv_trained_schedule(AppContext& ctx, KvTrainedView& v) {
  kvt_take(ctx, v);
  // The browser fetches the shipped models the first time; the desktop has them on disk.
  if (!ctx.fetch_files(io::length_lab_files()).done) {
    ctx.request_frames(2);
    return;
  }
  if (v.job.running()) {
    if (!(v.job_for == v.lab)) v.job.cancel();
    return;
  }
  if ((v.shown && v.shown->lab == v.lab) || (v.failed && *v.failed == v.lab)) return;
  auto st = std::make_shared<KvtJobState>();
  st->s = v.lab;
  st->data = v.shown ? v.shown->data : nullptr;
  v.job_for = v.lab;
  v.job.start_steps(kv_trained_to_preset(v.lab),
                    [st](JobControl& job) { return kvt_step(*st, job); });
  kvt_take(ctx, v);  // headless checks wait here
}

void kv_trained_draw_controls(AppContext& ctx, KvTrainedView& v, float scale) {
  KvTrainedSettings& s = v.lab;
  const KvTrainedSettings before = s;
  ImGui::PushItemWidth(190.0f * scale);
  ImGui::TextUnformatted(ctx.tr("kvt.demos"));
  kvt_demo_button(ctx, v, "kvt.demo_stitch", "kv?weights=trained&model=rope&scenario=stitch");
  kvt_demo_button(ctx, v, "kvt.demo_rag", "kv?weights=trained&model=rope&scenario=rag");
  kvt_demo_button(ctx, v, "kvt.demo_stream",
                  "kv?weights=trained&model=rope&scenario=stream&sinks=4");
  ImGui::Separator();
  const auto& names = lm::length_model_names();
  if (ImGui::BeginCombo(tr_id(ctx, "kvt.model").c_str(),
                        names[static_cast<size_t>(s.model)].c_str())) {
    for (size_t i = 0; i < names.size(); ++i)
      if (ImGui::Selectable(names[i].c_str(), static_cast<size_t>(s.model) == i))
        s.model = static_cast<lm::LengthModelId>(i);
    ImGui::EndCombo();
  }
  int sc = static_cast<int>(s.scenario);
  radio_row(sc, {{tr_id(ctx, "kvt.stitch"), ctx.tr("kvt.stitch_tip")},
                 {"RAG", ctx.tr("kvt.rag_tip")},
                 {tr_id(ctx, "kvt.stream"), ctx.tr("kvt.stream_tip")}});
  s.scenario = static_cast<KvTrainedScenario>(sc);
  using S = KvTrainedSettings;
  slider_int(tr_id(ctx, "kvt.passage_a").c_str(), s.passage_a, S::passage_range);
  if (s.scenario != KvTrainedScenario::stream) {
    slider_int(tr_id(ctx, "kvt.passage_b").c_str(), s.passage_b, S::passage_range);
    slider_int(tr_id(ctx, "kvt.a").c_str(), s.a_length, {1, 512}, true, ctx.tr("kvt.a_tip"));
    slider_int(tr_id(ctx, "kvt.b").c_str(), s.b_length, {0, 512}, false, ctx.tr("kvt.b_tip"));
    slider_int(tr_id(ctx, "kvt.cont").c_str(), s.continuation, {1, 256}, true);
  }
  if (s.scenario == KvTrainedScenario::rag) {
    slider_int(tr_id(ctx, "kvt.retrieved").c_str(), s.retrieved, {1, 128});
    slider_int(tr_id(ctx, "kvt.from").c_str(), s.retrieve_from, {0, 511});
    slider_int(tr_id(ctx, "kvt.stride").c_str(), s.retrieve_stride, S::retrieve_stride_range);
  }
  if (s.scenario == KvTrainedScenario::stream) {
    slider_int(tr_id(ctx, "kvt.span").c_str(), s.span, S::span_range);
    slider_int(tr_id(ctx, "kvt.window").c_str(), s.window, {1, 1024}, true,
               ctx.tr("kvt.window_tip"));
    slider_int(tr_id(ctx, "kvt.sinks").c_str(), s.sinks, S::sinks_range, false,
               ctx.tr("kvt.sinks_tip"));
    slider_int(tr_id(ctx, "kvt.smooth").c_str(), v.smooth, {1, 128}, true);
  }
  ImGui::PopItemWidth();
  if (!(s == before)) {
    try {
      kv_trained_validate(s);
    } catch (const Error& e) {  // one line in place; the values stay as the user set them
      v.last_error = tr_error(ctx, e);
      v.failed = s;
    }
  }
}

ViewRect kv_trained_draw_view(AppContext& ctx, KvTrainedView& v, float scale) {
  kv_trained_schedule(ctx, v);
  ImGui::SameLine();
  ImGui::BeginChild("##kv_view", ImVec2(0, 0), false);
  kvt_draw_view(ctx, v, scale);
  ImGui::EndChild();
  return last_item_rect();
}

void kv_trained_load(KvTrainedView& v, const std::string& preset) {
  v.lab = kv_trained_from_preset(preset);
  v.failed.reset();
}

LabNumbers kv_trained_numbers(const KvTrainedView& v) {
  if (!v.shown || v.job.running() || !(v.shown->lab == v.lab) || !v.shown->load_error.empty())
    return LabNumbers::none(share_message("share.why.computing"));
  return LabNumbers::of(io::dump_json(io::kv_trained_json(v.shown->result), 2) + "\n", "");
}

namespace {

void kvt_draw_view(AppContext& ctx, KvTrainedView& v, float scale) {
  if (v.job.running()) job_status(v.job, false, 160.0f * scale);
  if (!v.last_error.empty() && v.failed && *v.failed == v.lab) {
    ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(240, 120, 100, 255));
    text_wrapped("%s", v.last_error.c_str());
    ImGui::PopStyleColor();
  }
  if (!v.shown || !v.shown->load_error.empty()) {
    if (v.shown)
      text_wrapped("%s", v.shown->load_error.c_str());
    else
      ImGui::TextUnformatted(ctx.tr("kv.computing"));
    return;
  }
  const KvTrainedResult& r = v.shown->result;
  if (r.methods.empty()) return;
  text_wrapped("%s", kvt_caption(ctx, r).c_str());
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  text_wrapped("%s", r.note.c_str());  // wrapped: on a projector the end must stay visible
  ImGui::PopStyleColor();
  kvt_draw_curves(ctx, v, r, scale);
  kvt_draw_bytes(ctx, v, r, scale);
  kvt_draw_bars(ctx, v, r, scale);
}

}  // namespace

std::string kv_trained_check_state(const KvTrainedView& v) {
  if (v.job.running()) return "a computation is still running after the check frames";
  if (!v.shown) return "no trained result was computed";
  if (!v.shown->load_error.empty()) return {};  // shown in place: which file is missing
  if (!(v.shown->lab == v.lab)) return "the trained result belongs to other settings";
  const KvTrainedResult& r = v.shown->result;
  if (r.methods.empty() || !r.methods.front().reference) return "no reference method";
  if (v.curves_drawn != static_cast<int>(r.methods.size()))
    return "drew " + std::to_string(v.curves_drawn) + " curves for " +
           std::to_string(r.methods.size()) + " methods";
  for (const auto& m : r.methods)
    for (double b : m.bits)
      if (!std::isfinite(b)) return m.name + ": non-finite bits";
  if (r.lab.scenario != KvTrainedScenario::stream &&
      v.bytes_drawn != static_cast<int>(r.bytes.size()))
    return "drew " + std::to_string(v.bytes_drawn) + " bytes of " + std::to_string(r.bytes.size());
  if (drawn_numbers_wanted()) kvt_record_numbers(r);
  return {};
}

}  // namespace poslab::app
