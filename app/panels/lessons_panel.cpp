// The lessons panel: the catalog with progress, each lesson's text (Markdown from
// lessons/, drawn with headings, lists, code, emphasis and tables), buttons that open a
// lab in the lesson's preset, and the quiz with immediate feedback, scores, retries and
// the completion checklist, in English or Chinese. Grading and scores come from
// core/quiz; files are read and progress saved by io/lessons. This file only draws.
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "app/app_context.hpp"
#include "app/panels/panels.hpp"
#include "core/common/errors.hpp"
#include "core/common/preset.hpp"
#include "core/quiz/lessons_lab.hpp"
#include "core/quiz/numeric.hpp"
#include "core/quiz/progress.hpp"
#include "io/lessons/lesson_files.hpp"
#include "io/lessons/progress_file.hpp"

namespace poslab::app {
namespace {

// What the learner is typing or looking at for one question (not saved; the answers are).
struct QuestionUi {
  std::vector<bool> picks;       // choice kinds: options ticked for the next check
  std::string number;            // numeric: the text typed
  bool number_bad = false;       // numeric: the text did not parse
  std::string open_text;         // open: the learner's answer being written
  bool reference_shown = false;  // open: the reference and checklist are visible
  bool initialised = false;      // filled from the saved record once
};

// The generated parameters of a numeric question, kept while its seed stays the same.
struct NumericCache {
  std::uint64_t seed = 0;
  bool valid = false;
  NumericQuestion question;
};

// The panel's whole UI state. `lab` is what presets capture.
struct LessonsUi {
  LessonsLabSettings lab;
  std::string dir;          // lessons folder
  LessonLibrary lib;        // catalog and every lesson (broken ones marked)
  UiText words;             // lessons/ui.toml
  std::string words_error;  // why ui.toml could not be read, if so
  Progress progress;
  std::string progress_file;  // empty until the data directory is known
  bool progress_loaded = false;
  bool headless = false;                         // checks and captures never write progress
  bool cjk = true;                               // a Chinese font is available (last frame)
  bool select_view = true;                       // bring lab.view's tab to the front next frame
  std::map<std::string, QuestionUi> questions;   // by "lesson/question"
  std::map<std::string, NumericCache> numerics;  // by "lesson/question"
  std::map<std::string, MdDocument> md_cache;    // parsed Markdown by source text
  std::mt19937_64 rng{std::random_device{}()};   // seeds of new numeric attempts
  // For check_state: what the last frame drew.
  std::string drawn_lesson;
  int blocks_drawn = -1;
  int questions_drawn = -1;
  int catalog_rows_drawn = -1;
};

// ---- colours and fonts ------------------------------------------------------------------
struct Palette {
  ImVec4 heading, emphasis, strong, code_bg, link, good, bad, muted, quote_bar, card_bg;
};

Palette palette(bool dark) {
  if (dark)
    return {ImVec4(0.55f, 0.78f, 1.0f, 1),
            ImVec4(0.95f, 0.85f, 0.55f, 1),
            ImVec4(1, 1, 1, 1),
            ImVec4(0.16f, 0.17f, 0.21f, 1),
            ImVec4(0.45f, 0.75f, 1.0f, 1),
            ImVec4(0.40f, 0.85f, 0.50f, 1),
            ImVec4(1.0f, 0.45f, 0.42f, 1),
            ImVec4(0.62f, 0.62f, 0.66f, 1),
            ImVec4(0.45f, 0.55f, 0.75f, 1),
            ImVec4(0.13f, 0.14f, 0.17f, 1)};
  return {ImVec4(0.10f, 0.30f, 0.62f, 1),
          ImVec4(0.55f, 0.35f, 0.0f, 1),
          ImVec4(0, 0, 0, 1),
          ImVec4(0.92f, 0.93f, 0.95f, 1),
          ImVec4(0.05f, 0.35f, 0.80f, 1),
          ImVec4(0.05f, 0.55f, 0.20f, 1),
          ImVec4(0.80f, 0.12f, 0.10f, 1),
          ImVec4(0.40f, 0.40f, 0.44f, 1),
          ImVec4(0.55f, 0.62f, 0.80f, 1),
          ImVec4(0.96f, 0.96f, 0.98f, 1)};
}

bool is_ascii(const std::string& s) {
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

// Length of the UTF-8 sequence starting with byte c.
int utf8_length(unsigned char c) {
  return c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
}

// ---- inline text with wrapping ------------------------------------------------------------
// Lays out styled pieces left to right and wraps at the right edge. Latin text breaks at
// spaces; Chinese (any multi-byte character) may break between characters.
class InlineFlow {
 public:
  InlineFlow() {
    left_ = ImGui::GetCursorPosX();
    right_ = left_ + std::max(ImGui::GetContentRegionAvail().x, 50.0f);
  }

  void text(const std::string& s, ImFont* font, const ImVec4& colour, bool code_bg,
            const ImVec4& bg) {
    size_t i = 0;
    while (i < s.size()) {
      if (s[i] == '\n') {
        newline();
        ++i;
        continue;
      }
      size_t j = i;
      if (static_cast<unsigned char>(s[i]) >= 0x80) {
        j += static_cast<size_t>(utf8_length(static_cast<unsigned char>(s[i])));
        // Keep closing punctuation with the character before it.
        while (j < s.size() && static_cast<unsigned char>(s[j]) >= 0x80 && is_closing(s, j))
          j += static_cast<size_t>(utf8_length(static_cast<unsigned char>(s[j])));
      } else {
        while (j < s.size() && s[j] != ' ' && s[j] != '\n' &&
               static_cast<unsigned char>(s[j]) < 0x80)
          ++j;
        while (j < s.size() && s[j] == ' ') ++j;  // trailing spaces stay with the word
      }
      piece(s.substr(i, std::min(j, s.size()) - i), font, colour, code_bg, bg);
      i = j;
    }
  }

  // An inline button; returns true when clicked.
  bool button(const std::string& label, int id) {
    const ImGuiStyle& st = ImGui::GetStyle();
    const float w = ImGui::CalcTextSize(label.c_str()).x + 2 * st.FramePadding.x;
    place(w);
    ImGui::PushID(id);
    const bool clicked = ImGui::SmallButton(label.c_str());
    ImGui::PopID();
    x_ += w + st.ItemSpacing.x;
    return clicked;
  }

 private:
  static bool is_closing(const std::string& s, size_t at) {
    static const char* closers[] = {"，", "。", "、", "；", "：", "！", "？", "）", "”", "’"};
    for (const char* c : closers)
      if (s.compare(at, std::char_traits<char>::length(c), c) == 0) return true;
    return false;
  }

  void newline() {
    if (at_line_start_) ImGui::NewLine();
    at_line_start_ = true;
    x_ = left_;
  }

  void place(float w) {
    if (!at_line_start_ && x_ + w > right_) at_line_start_ = true, x_ = left_;
    if (!at_line_start_)
      ImGui::SameLine(0, 0);
    else
      ImGui::SetCursorPosX(left_);
    at_line_start_ = false;
  }

  void piece(std::string s, ImFont* font, const ImVec4& colour, bool code_bg, const ImVec4& bg) {
    if (at_line_start_) {
      const size_t first = s.find_first_not_of(' ');
      if (first == std::string::npos) return;  // no leading spaces on a new line
      s.erase(0, first);
    }
    ImGui::PushFont(font);
    const float w = ImGui::CalcTextSize(s.c_str()).x;
    place(w);
    if (code_bg) {
      const ImVec2 p = ImGui::GetCursorScreenPos();
      ImGui::GetWindowDrawList()->AddRectFilled(
          ImVec2(p.x - 1, p.y), ImVec2(p.x + w + 1, p.y + ImGui::GetTextLineHeight()),
          ImGui::ColorConvertFloat4ToU32(bg), 3.0f);
    }
    ImGui::PushStyleColor(ImGuiCol_Text, colour);
    ImGui::TextUnformatted(s.c_str());
    ImGui::PopStyleColor();
    ImGui::PopFont();
    x_ += w;
  }

  float left_ = 0, right_ = 0, x_ = 0;
  bool at_line_start_ = true;
};

// ---- Markdown -----------------------------------------------------------------------------
class MdView {
 public:
  MdView(AppContext& ctx, const Palette& pal, int& link_counter)
      : ctx_(ctx), pal_(pal), link_counter_(link_counter) {}

  // Draws every block; returns how many blocks were drawn.
  int document(const MdDocument& doc) {
    int drawn = 0;
    const auto& blocks = doc.blocks;
    for (size_t i = 0; i < blocks.size();) {
      if (blocks[i].kind == MdBlockKind::table_row) {
        size_t j = i;
        while (j < blocks.size() && blocks[j].kind == MdBlockKind::table_row &&
               blocks[j].columns == blocks[i].columns)
          ++j;
        table(blocks, i, j);
        drawn += static_cast<int>(j - i);
        i = j;
      } else {
        block(blocks[i]);
        ++drawn;
        ++i;
      }
    }
    return drawn;
  }

  void spans(const std::vector<MdSpan>& spans) {
    InlineFlow flow;
    ImFont* body = ImGui::GetFont();
    const ImVec4 normal = ImGui::GetStyleColorVec4(ImGuiCol_Text);
    for (size_t k = 0; k < spans.size(); ++k) {
      const MdSpan& s = spans[k];
      if (s.link.rfind(kLabLinkPrefix, 0) == 0) {
        // One button per link, even when the link text has several styled spans.
        std::string label = s.text;
        while (k + 1 < spans.size() && spans[k + 1].link == s.link) label += spans[++k].text;
        if (flow.button(label, link_counter_++))
          ctx_.open_lab(s.link.substr(std::string(kLabLinkPrefix).size()));
        if (ImGui::IsItemHovered())
          ImGui::SetTooltip("%s", s.link.c_str() + std::string(kLabLinkPrefix).size());
        continue;
      }
      ImFont* font = s.code && is_ascii(s.text) ? ctx_.mono_font() : body;
      ImVec4 colour = normal;
      if (s.emphasis) colour = pal_.emphasis;
      if (s.strong) colour = pal_.strong;
      if (!s.link.empty()) colour = pal_.link;
      if (s.strike) colour = pal_.muted;
      flow.text(s.text, font, colour, s.code, pal_.code_bg);
      if (!s.link.empty() && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", s.link.c_str());
    }
  }

 private:
  void block(const MdBlock& b) {
    const float indent = ImGui::GetFontSize() * 1.4f;
    const float quote_indent = ImGui::GetFontSize() * 0.9f;
    const float total =
        indent * static_cast<float>(b.indent) + quote_indent * static_cast<float>(b.quote);
    if (total > 0) ImGui::Indent(total);
    const ImVec2 start = ImGui::GetCursorScreenPos();
    switch (b.kind) {
      case MdBlockKind::heading: {
        ImGui::Dummy(ImVec2(0, ImGui::GetFontSize() * (b.level <= 2 ? 0.6f : 0.3f)));
        ImGui::PushFont(b.level <= 2 ? ctx_.heading_font() : ImGui::GetFont());
        if (b.level == 1) ImGui::SetWindowFontScale(1.2f);
        ImGui::PushStyleColor(ImGuiCol_Text, pal_.heading);
        spans(b.spans);
        ImGui::PopStyleColor();
        if (b.level == 1) ImGui::SetWindowFontScale(1.0f);
        ImGui::PopFont();
        if (b.level <= 2) ImGui::Separator();
        break;
      }
      case MdBlockKind::paragraph:
        if (b.continuation) ImGui::Indent(indent * 0.9f);
        spans(b.spans);
        if (b.continuation) ImGui::Unindent(indent * 0.9f);
        ImGui::Dummy(ImVec2(0, ImGui::GetFontSize() * 0.25f));
        break;
      case MdBlockKind::list_item: {
        const float marker = indent * 0.9f;
        if (b.ordered) {
          ImGui::Text("%d.", b.number);
        } else {
          ImGui::Bullet();
        }
        ImGui::SameLine();
        ImGui::Indent(marker);  // moves the cursor to the text column, on the marker's line
        ImGui::BeginGroup();
        spans(b.spans);
        ImGui::EndGroup();
        ImGui::Unindent(marker);
        break;
      }
      case MdBlockKind::code: {
        std::string text = b.code;
        while (!text.empty() && text.back() == '\n') text.pop_back();
        ImDrawList* dl = ImGui::GetWindowDrawList();
        dl->ChannelsSplit(2);
        dl->ChannelsSetCurrent(1);
        const ImVec2 p0 = ImGui::GetCursorScreenPos();
        const float pad = ImGui::GetStyle().FramePadding.x;
        ImGui::Dummy(ImVec2(0, pad * 0.5f));
        ImGui::Indent(pad);
        ImGui::PushFont(is_ascii(text) ? ctx_.mono_font() : ImGui::GetFont());
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextUnformatted(text.c_str());
        ImGui::PopTextWrapPos();
        ImGui::PopFont();
        ImGui::Unindent(pad);
        ImGui::Dummy(ImVec2(0, pad * 0.5f));
        const ImVec2 p1(ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x,
                        ImGui::GetCursorScreenPos().y);
        dl->ChannelsSetCurrent(0);
        dl->AddRectFilled(ImVec2(p0.x, p0.y), ImVec2(p1.x, p1.y - ImGui::GetStyle().ItemSpacing.y),
                          ImGui::ColorConvertFloat4ToU32(pal_.code_bg), 4.0f);
        dl->ChannelsMerge();
        ImGui::Dummy(ImVec2(0, ImGui::GetFontSize() * 0.2f));
        break;
      }
      case MdBlockKind::rule:
        ImGui::Separator();
        break;
      case MdBlockKind::table_row:
        break;  // drawn by table()
    }
    if (b.quote > 0) {
      const float x = start.x - quote_indent * 0.6f;
      ImGui::GetWindowDrawList()->AddLine(ImVec2(x, start.y),
                                          ImVec2(x, ImGui::GetCursorScreenPos().y - 2),
                                          ImGui::ColorConvertFloat4ToU32(pal_.quote_bar), 3.0f);
    }
    if (total > 0) ImGui::Unindent(total);
  }

  void table(const std::vector<MdBlock>& rows, size_t from, size_t to) {
    const int columns = std::max(1, rows[from].columns);
    const std::string id = "##table" + std::to_string(link_counter_++);
    if (!ImGui::BeginTable(
            id.c_str(), columns,
            ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp))
      return;
    for (size_t r = from; r < to; ++r) {
      ImGui::TableNextRow(rows[r].header ? ImGuiTableRowFlags_Headers : 0);
      for (int c = 0; c < columns; ++c) {
        ImGui::TableSetColumnIndex(c);
        if (c < static_cast<int>(rows[r].cells.size())) {
          if (rows[r].header) ImGui::PushStyleColor(ImGuiCol_Text, pal_.heading);
          spans(rows[r].cells[static_cast<size_t>(c)]);
          if (rows[r].header) ImGui::PopStyleColor();
        }
      }
    }
    ImGui::EndTable();
    ImGui::Dummy(ImVec2(0, ImGui::GetFontSize() * 0.3f));
  }

  AppContext& ctx_;
  const Palette& pal_;
  int& link_counter_;
};

// ---- the panel ----------------------------------------------------------------------------
class LessonsPanel final : public Panel {
 public:
  LessonsPanel() { reload(); }

  const char* id() const override { return kLessonsLabName; }
  const char* title() const override { return "Lessons"; }
  std::string preset() const override { return lessons_to_preset(ui_.lab); }

  void load_preset(const std::string& text) override {
    LessonsLabSettings s = lessons_from_preset(text);
    if (!s.lesson.empty() && ui_.lib.find(s.lesson) == nullptr) {
      std::string ids;
      for (const auto& l : ui_.lib.lessons) ids += (ids.empty() ? "" : ", ") + l.entry.id;
      throw InputError("lessons.lesson = \"" + s.lesson + "\": no such lesson in " + ui_.dir +
                       " (lessons: " + ids + ")");
    }
    ui_.lab = s;
    ui_.select_view = true;
  }

  std::vector<std::string> check_presets() const override {
    // Every lesson in both views, alternating the language, plus the catalog in Chinese.
    std::vector<std::string> out{"lessons?lang=zh"};
    bool zh = true;
    for (const auto& l : ui_.lib.lessons) {
      LessonsLabSettings s;
      s.lesson = l.entry.id;
      s.language = zh ? Language::zh : Language::en;
      out.push_back(lessons_to_preset(s));
      s.view = LessonsView::quiz;
      s.language = zh ? Language::en : Language::zh;
      out.push_back(lessons_to_preset(s));
      zh = !zh;
    }
    return out;
  }

  std::string check_state() const override {
    if (ui_.lib.catalog_problem) return "catalog: " + ui_.lib.catalog_problem->text();
    if (ui_.lib.lessons.empty()) return "no lessons loaded from " + ui_.dir;
    for (const auto& l : ui_.lib.lessons)
      if (l.broken()) return "lesson " + l.entry.id + " is broken: " + l.problems.front().text();
    if (!ui_.words_error.empty()) return ui_.words_error;
    if (ui_.lab.lesson.empty())
      return ui_.catalog_rows_drawn == static_cast<int>(ui_.lib.lessons.size())
                 ? std::string()
                 : "catalog drew " + std::to_string(ui_.catalog_rows_drawn) + " rows for " +
                       std::to_string(ui_.lib.lessons.size()) + " lessons";
    const Lesson* l = ui_.lib.find(ui_.lab.lesson);
    if (l == nullptr) return "lesson " + ui_.lab.lesson + " is not in the catalog";
    if (ui_.drawn_lesson != l->entry.id)
      return "drew lesson \"" + ui_.drawn_lesson + "\", want " + l->entry.id;
    if (ui_.lab.view == LessonsView::text) {
      const int want = static_cast<int>(l->text(language()).blocks.size());
      if (ui_.blocks_drawn != want)
        return "drew " + std::to_string(ui_.blocks_drawn) + " of " + std::to_string(want) +
               " Markdown blocks";
    } else {
      const int want = static_cast<int>(l->quiz.questions.size());
      if (ui_.questions_drawn != want)
        return "drew " + std::to_string(ui_.questions_drawn) + " of " + std::to_string(want) +
               " questions";
    }
    const auto it = ui_.progress.lessons.find(l->entry.id);
    if (it != ui_.progress.lessons.end()) {
      const LessonScore s = quiz_lesson_score(l->quiz, it->second);
      if (s.points < 0 || s.points > s.total || s.answered > s.total) return "score out of range";
    }
    return {};
  }

  void draw(AppContext& ctx) override {
    heading_font_ = ctx.heading_font();
    ui_.headless = ctx.headless();
    ui_.cjk = ctx.cjk_font() != nullptr;
    if (!ui_.progress_loaded) load_progress_file(ctx);
    const Palette pal = palette(ctx.dark_theme());
    if (ui_.md_cache.size() > 400) ui_.md_cache.clear();

    top_bar(ctx);
    ImGui::Separator();
    if (ui_.lib.catalog_problem) {
      ImGui::PushStyleColor(ImGuiCol_Text, pal.bad);
      ImGui::TextWrapped("%s", ui_.lib.catalog_problem->text().c_str());
      ImGui::PopStyleColor();
      ui_.catalog_rows_drawn = 0;
      return;
    }
    const Lesson* lesson = ui_.lab.lesson.empty() ? nullptr : ui_.lib.find(ui_.lab.lesson);
    if (lesson == nullptr) {
      ui_.lab.lesson.clear();
      catalog(pal);
    } else {
      lesson_view(ctx, *lesson, pal);
    }
  }

 private:
  Language language() const {
    return ui_.lab.language == Language::zh && ui_.cjk ? Language::zh : Language::en;
  }
  std::string w(const std::string& key) const { return ui_.words.get(key, language()); }

  void reload() {
    ui_.dir = default_lessons_dir();
    ui_.lib = load_lessons(ui_.dir);
    ui_.md_cache.clear();
    ui_.numerics.clear();
    ui_.questions.clear();
    ui_.words_error.clear();
    try {
      ui_.words = load_ui_text(ui_.dir);
    } catch (const Error& e) {
      ui_.words = UiText{};
      ui_.words_error = e.what();
    }
  }

  const MdDocument& md(const std::string& text) {
    auto it = ui_.md_cache.find(text);
    if (it == ui_.md_cache.end()) it = ui_.md_cache.emplace(text, parse_markdown(text)).first;
    return it->second;
  }

  void load_progress_file(AppContext& ctx) {
    ui_.progress_loaded = true;
    ui_.progress_file = progress_path(ctx.data_dir());
    try {
      ProgressLoad loaded = load_progress(ui_.progress_file);
      ui_.progress = std::move(loaded.progress);
      if (!loaded.notice.empty()) ctx.report_error("lesson progress", loaded.notice);
    } catch (const Error& e) {
      ctx.report_error("lesson progress", e.what());
    }
  }

  void save(AppContext& ctx) {
    ui_.progress.language = ui_.lab.language == Language::zh ? "zh" : "en";
    if (ui_.headless || ui_.progress_file.empty())
      return;  // checks and captures leave the user's file alone
    try {
      save_progress(ui_.progress_file, ui_.progress);
    } catch (const Error& e) {
      ctx.report_error(w("save_failed"), e.what());
    }
  }

  void top_bar(AppContext& ctx) {
    ImGui::TextUnformatted(w("language").c_str());
    ImGui::SameLine();
    if (ImGui::RadioButton("English", ui_.lab.language == Language::en)) {
      ui_.lab.language = Language::en;
      save(ctx);
    }
    ImGui::SameLine();
    ImGui::BeginDisabled(!ui_.cjk);
    if (ImGui::RadioButton(ui_.cjk ? "中文" : "Chinese",
                           ui_.lab.language == Language::zh && ui_.cjk)) {
      ui_.lab.language = Language::zh;
      save(ctx);
    }
    ImGui::EndDisabled();
    if (!ui_.cjk) {
      ImGui::SameLine();
      ImGui::TextDisabled("%s", ui_.words.get("no_cjk_font", Language::en).c_str());
    }
    ImGui::SameLine(0, ImGui::GetFontSize() * 2);
    if (ImGui::SmallButton(w("reload").c_str())) reload();
    if (!ui_.words_error.empty()) {
      ImGui::SameLine();
      ImGui::TextDisabled("(%s)", ui_.words_error.c_str());
    }
  }

  LessonProgress& progress_of(const std::string& lesson_id) {
    return ui_.progress.lessons[lesson_id];
  }

  void catalog(const Palette& pal) {
    ui_.drawn_lesson.clear();
    ImGui::PushFont(heading_font_);
    ImGui::TextUnformatted(w("catalog").c_str());
    ImGui::PopFont();
    int rows = 0;
    if (ImGui::BeginTable("##catalog", 4,
                          ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH |
                              ImGuiTableFlags_SizingStretchProp)) {
      ImGui::TableSetupColumn("#", ImGuiTableColumnFlags_WidthFixed, ImGui::GetFontSize() * 2.0f);
      ImGui::TableSetupColumn("title", ImGuiTableColumnFlags_WidthStretch, 5.0f);
      ImGui::TableSetupColumn("status", ImGuiTableColumnFlags_WidthStretch, 1.4f);
      ImGui::TableSetupColumn("score", ImGuiTableColumnFlags_WidthStretch, 1.6f);
      int n = 1;
      for (const auto& l : ui_.lib.lessons) {
        ImGui::PushID(l.entry.id.c_str());
        ImGui::TableNextRow();
        ImGui::TableSetColumnIndex(0);
        ImGui::Text("%d", n++);
        ImGui::TableSetColumnIndex(1);
        if (ImGui::Selectable(l.entry.title.in(language()).c_str(), false,
                              ImGuiSelectableFlags_SpanAllColumns)) {
          ui_.lab.lesson = l.entry.id;
          ui_.lab.view = LessonsView::text;
          ui_.select_view = true;
        }
        ImGui::PushStyleColor(ImGuiCol_Text, pal.muted);
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextUnformatted(l.entry.summary.in(language()).c_str());
        ImGui::PopTextWrapPos();
        ImGui::PopStyleColor();
        ImGui::TableSetColumnIndex(2);
        if (l.broken()) {
          ImGui::TextColored(pal.bad, "%s", w("broken").c_str());
        } else {
          const auto it = ui_.progress.lessons.find(l.entry.id);
          const LessonScore s = it == ui_.progress.lessons.end()
                                    ? LessonScore{0, int(l.quiz.questions.size()), 0}
                                    : quiz_lesson_score(l.quiz, it->second);
          const bool done = it != ui_.progress.lessons.end() && it->second.completed;
          if (done)
            ImGui::TextColored(pal.good, "%s", w("completed").c_str());
          else if (s.answered > 0)
            ImGui::TextUnformatted(w("in_progress").c_str());
          else
            ImGui::TextDisabled("%s", w("not_started").c_str());
          ImGui::TableSetColumnIndex(3);
          const float frac = s.total > 0 ? static_cast<float>(s.points / s.total) : 0.0f;
          char overlay[64];
          std::snprintf(overlay, sizeof overlay, "%.1f / %d", s.points, s.total);
          ImGui::ProgressBar(frac, ImVec2(-1, 0), overlay);
        }
        if (l.broken()) {
          ImGui::TableNextRow();
          ImGui::TableSetColumnIndex(1);
          ImGui::PushStyleColor(ImGuiCol_Text, pal.bad);
          ImGui::TextWrapped("%s", w("broken_help").c_str());
          for (const auto& p : l.problems) ImGui::TextWrapped("%s", p.text().c_str());
          ImGui::PopStyleColor();
        }
        ++rows;
        ImGui::PopID();
      }
      ImGui::EndTable();
    }
    ui_.catalog_rows_drawn = rows;
    ImGui::Spacing();
    ImGui::TextDisabled("%s: %s", w("progress_note").c_str(),
                        ui_.headless ? w("not_saved_headless").c_str() : ui_.progress_file.c_str());
  }

  void lesson_view(AppContext& ctx, const Lesson& lesson, const Palette& pal) {
    ui_.drawn_lesson = lesson.entry.id;
    if (ImGui::Button(w("back").c_str())) {
      ui_.lab.lesson.clear();
      return;
    }
    ImGui::SameLine();
    ImGui::PushFont(heading_font_);
    ImGui::TextUnformatted(lesson.entry.title.in(language()).c_str());
    ImGui::PopFont();
    if (lesson.broken()) {
      ImGui::PushStyleColor(ImGuiCol_Text, pal.bad);
      ImGui::TextWrapped("%s", w("broken_help").c_str());
      for (const auto& p : lesson.problems) ImGui::TextWrapped("%s", p.text().c_str());
      ImGui::PopStyleColor();
      ui_.blocks_drawn = ui_.questions_drawn = 0;
      return;
    }
    LessonProgress& lp = progress_of(lesson.entry.id);
    const LessonScore s = quiz_lesson_score(lesson.quiz, lp);
    ImGui::SameLine();
    ImGui::TextDisabled("  %s %.1f / %d  ·  %s %d / %d", w("score").c_str(), s.points, s.total,
                        w("answered").c_str(), s.answered, s.total);
    if (lp.completed) {
      ImGui::SameLine();
      ImGui::TextColored(pal.good, "  %s", w("completed").c_str());
    }

    if (ImGui::BeginTabBar("##lesson_tabs")) {
      const bool pick = ui_.select_view;
      ui_.select_view = false;
      const ImGuiTabItemFlags text_flags =
          pick && ui_.lab.view == LessonsView::text ? ImGuiTabItemFlags_SetSelected : 0;
      const ImGuiTabItemFlags quiz_flags =
          pick && ui_.lab.view == LessonsView::quiz ? ImGuiTabItemFlags_SetSelected : 0;
      const std::string text_tab = w("lesson") + "###text", quiz_tab = w("quiz") + "###quiz";
      if (ImGui::BeginTabItem(text_tab.c_str(), nullptr, text_flags)) {
        if (!pick) ui_.lab.view = LessonsView::text;
        ImGui::PushID(lesson.entry.id.c_str());
        ImGui::BeginChild("##text");
        int links = 0;
        MdView view(ctx, pal, links);
        ui_.blocks_drawn = view.document(lesson.text(language()));
        ImGui::Spacing();
        if (ImGui::Button((w("quiz") + " >").c_str())) {
          ui_.lab.view = LessonsView::quiz;
          ui_.select_view = true;
        }
        ImGui::EndChild();
        ImGui::PopID();
        ImGui::EndTabItem();
      }
      if (ImGui::BeginTabItem(quiz_tab.c_str(), nullptr, quiz_flags)) {
        if (!pick) ui_.lab.view = LessonsView::quiz;
        ImGui::PushID(lesson.entry.id.c_str());
        ImGui::BeginChild("##quiz");
        quiz(ctx, lesson, lp, pal);
        ImGui::EndChild();
        ImGui::PopID();
        ImGui::EndTabItem();
      }
      ImGui::EndTabBar();
    }
  }

  void quiz(AppContext& ctx, const Lesson& lesson, LessonProgress& lp, const Palette& pal) {
    int links = 1000;
    MdView view(ctx, pal, links);
    int drawn = 0;
    for (size_t n = 0; n < lesson.quiz.questions.size(); ++n) {
      const Question& q = lesson.quiz.questions[n];
      ImGui::PushID(q.id.c_str());
      std::string header = w("question_n");
      if (const size_t at = header.find("{n}"); at != std::string::npos)
        header.replace(at, 3, std::to_string(n + 1));
      ImGui::Dummy(ImVec2(0, ImGui::GetFontSize() * 0.4f));
      ImGui::PushFont(heading_font_);
      ImGui::TextColored(pal.heading, "%s", header.c_str());
      ImGui::PopFont();
      ImGui::SameLine();
      ImGui::TextDisabled("%s", w("kind_" + quiz_kind_name(q.kind)).c_str());
      AnswerRecord& rec = lp.answers[q.id];
      QuestionUi& qu = ui_.questions[lesson.entry.id + "/" + q.id];
      if (!qu.initialised) {
        qu.initialised = true;
        qu.picks.assign(q.options.size(), false);
        for (int c : rec.chosen)
          if (c >= 0 && c < static_cast<int>(qu.picks.size()))
            qu.picks[static_cast<size_t>(c)] = true;
        qu.open_text = rec.text;
        if (!rec.text.empty()) ctx.ensure_glyphs(rec.text);
        qu.reference_shown = rec.answered;
      }
      ImGui::Indent(ImGui::GetFontSize());
      switch (q.kind) {
        case QuestionKind::numeric:
          numeric(ctx, lesson, q, rec, qu, view, pal);
          break;
        case QuestionKind::open:
          open(ctx, q, rec, qu, view, pal);
          break;
        default:
          choice(ctx, q, rec, qu, view, pal);
          break;
      }
      ImGui::Unindent(ImGui::GetFontSize());
      ImGui::Separator();
      ImGui::PopID();
      ++drawn;
    }
    ui_.questions_drawn = drawn;
    completion(ctx, lesson, lp, pal);
  }

  void feedback_line(bool correct, const Palette& pal) {
    ImGui::PushFont(heading_font_);
    ImGui::TextColored(correct ? pal.good : pal.bad, "%s",
                       w(correct ? "correct" : "incorrect").c_str());
    ImGui::PopFont();
  }

  void choice(AppContext& ctx, const Question& q, AnswerRecord& rec, QuestionUi& qu, MdView& view,
              const Palette& pal) {
    view.document(md(q.prompt.in(language())));
    if (q.kind == QuestionKind::spot_error) {
      ImGui::TextColored(pal.muted, "%s", w("claim").c_str());
      ImGui::Indent(ImGui::GetFontSize());
      ImGui::PushStyleColor(ImGuiCol_Text, pal.emphasis);
      view.document(md(q.claim.in(language())));
      ImGui::PopStyleColor();
      ImGui::Unindent(ImGui::GetFontSize());
      ImGui::TextColored(pal.muted, "%s", w("spot_hint").c_str());
    }
    if (q.kind == QuestionKind::predict) {
      ImGui::TextColored(pal.muted, "%s", w("predict_hint").c_str());
      if (ImGui::SmallButton(w("open_lab_start").c_str())) ctx.open_lab(q.preset);
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", q.preset.c_str());
    }
    const bool multiple = q.kind == QuestionKind::multiple;
    if (!rec.answered)
      ImGui::TextDisabled("%s", w(multiple ? "choose_many" : "choose_one").c_str());
    ChoiceVerdict verdict;
    if (rec.answered) {
      try {
        verdict = quiz_check_choice(q, rec.chosen);
      } catch (const Error&) {
        rec.answered = false;  // a saved answer that no longer fits the edited question
      }
    }
    for (size_t i = 0; i < q.options.size(); ++i) {
      ImGui::PushID(static_cast<int>(i));
      const std::string letter = quiz_option_letter(static_cast<int>(i)) + ".";
      ImGui::BeginDisabled(rec.answered);
      if (multiple) {
        bool v = qu.picks[i];
        if (ImGui::Checkbox(letter.c_str(), &v)) qu.picks[i] = v;
      } else if (ImGui::RadioButton(letter.c_str(), qu.picks[i])) {
        std::fill(qu.picks.begin(), qu.picks.end(), false);
        qu.picks[i] = true;
      }
      ImGui::EndDisabled();
      ImGui::SameLine();
      ImGui::BeginGroup();
      const ImVec4 colour = !rec.answered          ? ImGui::GetStyleColorVec4(ImGuiCol_Text)
                            : q.options[i].correct ? pal.good
                            : qu.picks[i]          ? pal.bad
                                                   : pal.muted;
      ImGui::PushStyleColor(ImGuiCol_Text, colour);
      view.spans(md(q.options[i].text.in(language())).blocks.empty()
                     ? std::vector<MdSpan>{}
                     : md(q.options[i].text.in(language())).blocks.front().spans);
      ImGui::PopStyleColor();
      if (rec.answered && (q.options[i].correct || qu.picks[i])) {
        // Words as well as colours: right answer, and what was chosen.
        std::string mark = q.options[i].correct ? w("mark_correct") : std::string();
        if (qu.picks[i]) mark += (mark.empty() ? "" : "  ") + w("mark_chosen");
        ImGui::TextColored(q.options[i].correct ? pal.good : pal.bad, "%s", mark.c_str());
      }
      if (rec.answered) {
        ImGui::PushStyleColor(ImGuiCol_Text, pal.muted);
        view.document(md(q.options[i].explain.in(language())));
        ImGui::PopStyleColor();
      }
      ImGui::EndGroup();
      ImGui::PopID();
    }
    if (!rec.answered) {
      std::vector<int> chosen;
      for (size_t i = 0; i < qu.picks.size(); ++i)
        if (qu.picks[i]) chosen.push_back(static_cast<int>(i));
      ImGui::BeginDisabled(chosen.empty());
      if (ImGui::Button(w("submit").c_str())) {
        quiz_answer_choice(rec, q, chosen);
        save(ctx);
      }
      ImGui::EndDisabled();
      return;
    }
    feedback_line(verdict.correct, pal);
    if (q.kind == QuestionKind::predict) {
      ImGui::TextColored(pal.heading, "%s", w("reveal").c_str());
      view.document(md(q.reveal.in(language())));
      const std::string& target = q.reveal_preset.empty() ? q.preset : q.reveal_preset;
      if (ImGui::Button(w("show_in_lab").c_str())) ctx.open_lab(target);
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", target.c_str());
      ImGui::SameLine();
    }
    if (ImGui::Button(w("retry").c_str())) {
      quiz_retry(rec, rec.seed);
      std::fill(qu.picks.begin(), qu.picks.end(), false);
      save(ctx);
    }
  }

  const NumericQuestion* numeric_question(const Lesson& lesson, const Question& q,
                                          AnswerRecord& rec) {
    NumericCache& cache = ui_.numerics[lesson.entry.id + "/" + q.id];
    if (!cache.valid || cache.seed != rec.seed) {
      cache.valid = false;
      cache.seed = rec.seed;
      cache.question =
          quiz_generate(q.generator, rec.seed);  // throws only for an unknown generator
      cache.valid = true;
    }
    return &cache.question;
  }

  std::uint64_t fresh_seed() { return ui_.headless ? 1 : ui_.rng(); }

  void numeric(AppContext& ctx, const Lesson& lesson, const Question& q, AnswerRecord& rec,
               QuestionUi& qu, MdView& view, const Palette& pal) {
    if (rec.attempts == 0 && !rec.answered && rec.seed == 0) {
      rec.seed = fresh_seed();  // fresh parameters for the first attempt too
      save(ctx);
    }
    const NumericQuestion& nq = *numeric_question(lesson, q, rec);
    view.document(md(quiz_fill_template(q.prompt.in(language()), nq)));
    const std::string unit = q.unit.in(language());
    if (!rec.answered) {
      ImGui::TextUnformatted(w("enter_number").c_str());
      ImGui::SameLine();
      ImGui::SetNextItemWidth(ImGui::GetFontSize() * 12);
      const bool enter =
          ImGui::InputText("##number", &qu.number, ImGuiInputTextFlags_EnterReturnsTrue);
      if (!unit.empty()) {
        ImGui::SameLine();
        ImGui::TextUnformatted(unit.c_str());
      }
      ImGui::SameLine();
      if (ImGui::Button(w("submit").c_str()) || enter) {
        try {
          quiz_answer_numeric(rec, q, parse_double(qu.number, "answer"));
          qu.number_bad = false;
          save(ctx);
        } catch (const InputError&) {
          qu.number_bad = true;
        }
      }
      if (qu.number_bad) ImGui::TextColored(pal.bad, "%s", w("not_a_number").c_str());
      return;
    }
    const NumericVerdict v = quiz_check_numeric(nq, rec.number);
    feedback_line(v.correct, pal);
    ImGui::Text("%s: %s %s   %s: %.6g %s   (%s ±%.3g)", w("your_answer").c_str(),
                format_double(rec.number).c_str(), unit.c_str(), w("expected").c_str(), v.expected,
                unit.c_str(), w("tolerance").c_str(), v.tolerance);
    ImGui::PushStyleColor(ImGuiCol_Text, pal.muted);
    view.document(md(quiz_fill_template(q.explain.in(language()), nq)));
    ImGui::PopStyleColor();
    if (ImGui::Button(w("new_numbers").c_str())) {
      quiz_retry(rec, fresh_seed());
      qu.number.clear();
      save(ctx);
    }
  }

  void open(AppContext& ctx, const Question& q, AnswerRecord& rec, QuestionUi& qu, MdView& view,
            const Palette& pal) {
    view.document(md(q.prompt.in(language())));
    ImGui::TextDisabled("%s", w("open_hint").c_str());
    if (ImGui::InputTextMultiline("##answer", &qu.open_text,
                                  ImVec2(-1, ImGui::GetTextLineHeight() * 6)))
      ctx.ensure_glyphs(qu.open_text);  // Chinese typed here must be drawable too
    if (ImGui::IsItemDeactivatedAfterEdit() && rec.answered) {
      quiz_answer_open(rec, q, qu.open_text, rec.ticks);
      save(ctx);
    }
    if (!qu.reference_shown) {
      if (ImGui::Button(w("show_reference").c_str())) {
        qu.reference_shown = true;
        quiz_answer_open(rec, q, qu.open_text, rec.ticks);
        save(ctx);
      }
      return;
    }
    if (!rec.answered) quiz_answer_open(rec, q, qu.open_text, rec.ticks);
    ImGui::TextColored(pal.heading, "%s", w("reference").c_str());
    ImGui::Indent(ImGui::GetFontSize());
    view.document(md(q.reference.in(language())));
    ImGui::Unindent(ImGui::GetFontSize());
    ImGui::TextColored(pal.heading, "%s", w("self_check").c_str());
    std::vector<bool> ticks = rec.ticks;
    ticks.resize(q.checklist.size(), false);
    bool changed = false;
    for (size_t i = 0; i < q.checklist.size(); ++i) {
      ImGui::PushID(static_cast<int>(i));
      bool v = ticks[i];
      if (ImGui::Checkbox("##tick", &v)) {
        ticks[i] = v;
        changed = true;
      }
      ImGui::SameLine();
      ImGui::BeginGroup();
      view.spans(md(q.checklist[i].in(language())).blocks.empty()
                     ? std::vector<MdSpan>{}
                     : md(q.checklist[i].in(language())).blocks.front().spans);
      ImGui::EndGroup();
      ImGui::PopID();
    }
    if (changed) {
      quiz_answer_open(rec, q, qu.open_text, ticks);
      save(ctx);
    }
    const double score = quiz_question_score(q, rec);
    ImGui::TextColored(score >= 1.0 ? pal.good : pal.muted, "%s %.0f %%", w("score").c_str(),
                       score * 100.0);
  }

  void completion(AppContext& ctx, const Lesson& lesson, LessonProgress& lp, const Palette& pal) {
    ImGui::Dummy(ImVec2(0, ImGui::GetFontSize() * 0.5f));
    ImGui::PushFont(heading_font_);
    ImGui::TextColored(pal.heading, "%s", w("checklist").c_str());
    ImGui::PopFont();
    lp.checklist.resize(lesson.quiz.checklist.size(), false);
    bool changed = false;
    int links = 2000;
    MdView view(ctx, pal, links);
    for (size_t i = 0; i < lesson.quiz.checklist.size(); ++i) {
      ImGui::PushID(static_cast<int>(i) + 10000);
      bool v = lp.checklist[i];
      if (ImGui::Checkbox("##check", &v)) {
        lp.checklist[i] = v;
        changed = true;
      }
      ImGui::SameLine();
      ImGui::BeginGroup();
      const MdDocument& doc = md(lesson.quiz.checklist[i].in(language()));
      if (!doc.blocks.empty()) view.spans(doc.blocks.front().spans);
      ImGui::EndGroup();
      ImGui::PopID();
    }
    const bool was = lp.completed;
    quiz_update_completion(lesson.quiz, lp);
    if (changed || was != lp.completed) save(ctx);
    if (lp.completed)
      ImGui::TextColored(pal.good, "%s", w("lesson_complete").c_str());
    else
      ImGui::TextDisabled("%s", w("lesson_incomplete").c_str());
    if (ImGui::SmallButton(w("reset_lesson").c_str())) {
      lp = LessonProgress{};
      for (auto it = ui_.questions.begin(); it != ui_.questions.end();)
        it = it->first.rfind(lesson.entry.id + "/", 0) == 0 ? ui_.questions.erase(it)
                                                            : std::next(it);
      save(ctx);
    }
  }

  LessonsUi ui_;
  ImFont* heading_font_ = nullptr;  // the shell's heading font, refreshed every frame
};

}  // namespace

std::unique_ptr<Panel> make_lessons_panel() {
  return std::make_unique<LessonsPanel>();
}

}  // namespace poslab::app
