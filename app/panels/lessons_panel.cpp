// The lessons panel: the catalog with progress, each lesson's text (Markdown from
// lessons/, drawn with headings, lists, code, emphasis and tables), buttons that open a
// lab in the lesson's preset, and the quiz with immediate feedback, scores, retries and
// the completion checklist, in English or Chinese. Grading and scores come from
// core/quiz; files are read and progress saved by io/lessons. This file only draws.
// Sections: LessonsPanel: presets, checks and the frame | files, words and progress | top
// bar | catalog | lesson view (text and quiz tabs). The UI state (LessonsUi) and the quiz
// tab's questions and completion checklist: lessons_views.cpp.
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "app/app_context.hpp"
#include "app/panels/lessons_views.hpp"
#include "app/panels/panels.hpp"
#include "app/widgets.hpp"
#include "app/widgets/markdown_view.hpp"
#include "app/widgets/tr_args.hpp"
#include "core/common/errors.hpp"
#include "core/common/preset.hpp"
#include "core/quiz/lessons_lab.hpp"
#include "core/quiz/numeric.hpp"
#include "core/quiz/progress.hpp"
#include "io/data/data_dir.hpp"
#include "io/lessons/lesson_files.hpp"
#include "io/lessons/progress_file.hpp"
#include "io/lessons/quiz_feedback.hpp"

namespace poslab::app {
namespace {

using namespace poslab::io;
using Palette = TextPalette;
using MdView = MarkdownView;

// ---- LessonsPanel: presets, checks and the frame -------------------------------------------
class LessonsPanel final : public Panel {
 public:
  LessonsPanel() { reload(); }

  const char* id() const override { return kLessonsLabName; }
  const char* title() const override { return "Lessons"; }
  // Always names the language (English too): the lab's language follows the interface, so
  // a preset without `lang=` would mean a different state under the other interface language.
  std::string preset() const override {
    LessonsLabSettings other;
    other.language = ui_.lab.language == Language::en ? Language::zh : Language::en;
    PresetWriter w(kLessonsLabName);
    preset_write(w, lessons_preset_fields(), ui_.lab, other);
    return w.str();
  }

  // A preset without `lang=` (a link between lessons) keeps the language being read.
  void load_preset(const std::string& text) override {
    LessonsLabSettings base;
    base.language = ui_.lab.language;
    LessonsLabSettings s = lessons_from_preset(text, base);
    if (!s.lesson.empty() && ui_.lib.find(s.lesson) == nullptr) {
      std::string ids;
      for (const auto& l : ui_.lib.lessons) ids += (ids.empty() ? "" : ", ") + l.entry.id;
      throw InputError("lessons.lesson = \"" + s.lesson + "\": no such lesson in " + ui_.dir +
                       " (lessons: " + ids + ")");
    }
    ui_.lab = s;
    ui_.select_view = true;
  }

  // The lessons follow the interface language; the radios in the lab override it until the
  // interface language changes again.
  void set_interface_language(const std::string& lang) override {
    ui_.lab.language = lang == "zh" ? Language::zh : Language::en;
  }

  void release_gl() override {
    for (auto& [lab, picture] : ui_.lab_pictures)
      if (picture) picture->release();
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
      // Every block is drawn, or folded behind a prediction not yet made.
      const int want = static_cast<int>(l->text(language()).blocks.size());
      if (ui_.blocks_drawn + ui_.blocks_folded != want)
        return "drew " + std::to_string(ui_.blocks_drawn) + " and folded " +
               std::to_string(ui_.blocks_folded) + " of " + std::to_string(want) +
               " Markdown blocks";
    } else {
      const int want = static_cast<int>(
          std::count_if(l->quiz.questions.begin(), l->quiz.questions.end(),
                        [&](const Question& q) { return !l->predicted_in_text(q.id); }));
      if (ui_.questions_drawn != want)
        return "drew " + std::to_string(ui_.questions_drawn) + " of " + std::to_string(want) +
               " questions";
    }
    // The labs column (a wide window): one button per distinct lab link of the lesson.
    const auto links = lessons_lab_links(l->text(language()));
    if (ui_.lab_links_drawn >= 0 && ui_.lab_links_drawn != static_cast<int>(links.size()))
      return "labs column drew " + std::to_string(ui_.lab_links_drawn) + " of " +
             std::to_string(links.size()) + " lab links";
    const auto it = ui_.progress.lessons.find(l->entry.id);
    if (it != ui_.progress.lessons.end()) {
      const LessonScore s = quiz_lesson_score(l->quiz, it->second);
      if (s.points < 0 || s.points > s.total || s.answered > s.total) return "score out of range";
    }
    return {};
  }

  void draw(AppContext& ctx) override {
    heading_font_ = ctx.heading_font();
    developer_ = ctx.developer();
    saved_here_ = ctx.tr("lessons.progress_saved");
    ui_.headless = ctx.headless();
    ui_.cjk = ctx.cjk_font() != nullptr;
    if (!ui_.progress_loaded) load_progress_file(ctx);
    const Palette pal = text_palette(ctx.dark_theme());
    if (ui_.md_cache.size() > 400) ui_.md_cache.clear();

    top_bar(ctx);
    ImGui::Separator();
    if (ui_.lib.catalog_problem) {
      ImGui::PushStyleColor(ImGuiCol_Text, pal.bad);
      text_wrapped("%s", ui_.lib.catalog_problem->text().c_str());
      ImGui::PopStyleColor();
      ui_.catalog_rows_drawn = 0;
      return;
    }
    const Lesson* lesson = ui_.lab.lesson.empty() ? nullptr : ui_.lib.find(ui_.lab.lesson);
    if (lesson == nullptr) {
      ui_.lab.lesson.clear();
      // A wide window: the catalog on the left, the next lesson and its labs on the right
      // (the right half was empty on a projector).
      const float scale = ctx.ui_scale(), avail = ImGui::GetContentRegionAvail().x;
      const Lesson* next = next_lesson();
      if (next != nullptr && avail >= 1100.0f * scale) {
        ImGui::BeginChild("##catalog_left", ImVec2(avail * 0.6f, 0), false);
        catalog(pal);
        ImGui::EndChild();
        ImGui::SameLine();
        ImGui::BeginChild("##catalog_next", ImVec2(0, 0), false);
        next_lesson_column(ctx, *next, scale);
        ImGui::EndChild();
      } else {
        ui_.lab_links_drawn = -1;
        catalog(pal);
      }
    } else {
      lesson_view(ctx, *lesson, pal);
    }
  }

 private:
  // ---- files, words and progress -----------------------------------------------------------
  Language language() const { return lessons_language(ui_); }
  std::string w(const std::string& key) const { return lessons_word(ui_, key); }

  void reload() {
    ui_.dir = io::lessons_dir();
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

  const MdDocument& md(const std::string& text) { return lessons_md(ui_, text); }

  void load_progress_file(AppContext& ctx) {
    ui_.progress_loaded = true;
    ui_.progress_file = progress_path(ctx.data_dir());
    try {
      ProgressLoad loaded = load_progress(ui_.progress_file);
      ui_.progress = std::move(loaded.progress);
      ui_.progress_base = ui_.progress;
      if (!loaded.backup_path.empty())  // the notice, in the lessons' language
        ctx.report_error(w("progress_where"),
                         tr_args(w("progress_corrupt"), {{"reason", loaded.reason},
                                                         {"kept", loaded.backup_path},
                                                         {"file", ui_.progress_file}}));
      else if (!loaded.notice.empty())
        ctx.report_error(w("progress_where"), loaded.notice);
      // A file we may not read is never replaced: this session's answers are not saved.
      if (loaded.unreadable) ui_.progress_file.clear();
    } catch (const Error& e) {
      ctx.report_error(w("progress_where"), e.what());
    }
  }

  void save(AppContext& ctx) { lessons_save(ctx, ui_); }

  // ---- top bar -----------------------------------------------------------------------------
  void top_bar(AppContext& ctx) {
    ImGui::TextUnformatted(w("language").c_str());
    ImGui::SameLine();
    // One language setting: these radios switch the whole interface, as View > Language.
    if (ImGui::RadioButton("English", ui_.lab.language == Language::en)) {
      ui_.lab.language = Language::en;
      ctx.request_language("en");
      save(ctx);
    }
    tooltip(ctx.tr("lessons.language_tip"));
    ImGui::SameLine();
    // The browser fetches the Chinese font when Chinese is chosen (app/web/main.cpp): there
    // the switch works before the font is in; on the desktop it needs the installed font.
#ifdef __EMSCRIPTEN__
    const bool can_choose_zh = true;
#else
    const bool can_choose_zh = ui_.cjk;
#endif
    ImGui::BeginDisabled(!can_choose_zh);
    if (ImGui::RadioButton(ui_.cjk ? "中文" : "Chinese",
                           ui_.lab.language == Language::zh && can_choose_zh)) {
      ui_.lab.language = Language::zh;
      ctx.request_language("zh");
      save(ctx);
    }
    ImGui::EndDisabled();
    tooltip(ctx.tr("lessons.language_tip"));
    if (!ui_.cjk) {
      ImGui::SameLine();
#ifdef __EMSCRIPTEN__
      const char* why = "no_cjk_font_web";  // the page fetches it (app/web/main.cpp)
#else
      const char* why = "no_cjk_font";
#endif
      ImGui::TextDisabled("%s", ui_.words.get(why, Language::en).c_str());
    }
    if (ctx.developer()) {  // reading edited lesson files again: a lesson writer's tool
      ImGui::SameLine(0, ImGui::GetFontSize() * 2);
      if (ImGui::SmallButton(w("reload").c_str())) reload();
      tooltip(ctx.tr("lessons.reload_tip"));
    }
    if (!ui_.words_error.empty()) {
      ImGui::SameLine();
      ImGui::TextDisabled("(%s)", ui_.words_error.c_str());
    }
  }

  // ---- catalog -----------------------------------------------------------------------------
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
        wrapped_text(l.entry.summary.in(language()));
        ImGui::PopStyleColor();
        ImGui::TableSetColumnIndex(2);
        if (l.broken()) {
          ImGui::TextColored(pal.bad, "%s", w("broken").c_str());
        } else {
          // The same count as the lesson header: predictions are made, not scored.
          const auto it = ui_.progress.lessons.find(l.entry.id);
          const LessonProgress none;
          const LessonScore s =
              quiz_lesson_score(l.quiz, it == ui_.progress.lessons.end() ? none : it->second);
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
          text_wrapped("%s", w("broken_help").c_str());
          for (const auto& p : l.problems) text_wrapped("%s", p.text().c_str());
          ImGui::PopStyleColor();
        }
        ++rows;
        ImGui::PopID();
      }
      ImGui::EndTable();
    }
    ui_.catalog_rows_drawn = rows;
    ImGui::Spacing();
    // The file's path is for developers (POSLAB_DEVELOPER=1); a class sees where it stands.
    ImGui::TextDisabled("%s: %s", w("progress_note").c_str(),
                        ui_.headless ? w("not_saved_headless").c_str()
                        : developer_ ? ui_.progress_file.c_str()
                                     : saved_here_);
  }

  // The first lesson not completed (the first one when all are), or nullptr.
  const Lesson* next_lesson() const {
    for (const auto& l : ui_.lib.lessons) {
      const auto it = ui_.progress.lessons.find(l.entry.id);
      if (!l.broken() && (it == ui_.progress.lessons.end() || !it->second.completed)) return &l;
    }
    return ui_.lib.lessons.empty() ? nullptr : &ui_.lib.lessons.front();
  }

  // Beside the catalog: the next lesson's title and summary, a button opening it, its labs.
  void next_lesson_column(AppContext& ctx, const Lesson& l, float scale) {
    ImGui::PushFont(heading_font_);
    ImGui::TextUnformatted(w("next_lesson").c_str());
    ImGui::PopFont();
    ImGui::TextUnformatted(l.entry.title.in(language()).c_str());
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    wrapped_text(l.entry.summary.in(language()));
    ImGui::PopStyleColor();
    const float width = std::min(ImGui::GetContentRegionAvail().x, 560.0f * scale);
    if (ImGui::Button((w("open_lesson") + "###open_next").c_str(), ImVec2(width, 0))) {
      ui_.lab.lesson = l.entry.id;
      ui_.lab.view = LessonsView::text;
      ui_.select_view = true;
    }
    ImGui::Spacing();
    lessons_labs_column(ctx, ui_, heading_font_, lessons_lab_links(l.text(language())), width);
    ui_.lab_links_drawn = -1;  // the check counts the open lesson's column only
  }

  // ---- lesson view (text and quiz tabs) ----------------------------------------------------
  void lesson_view(AppContext& ctx, const Lesson& lesson, const Palette& pal) {
    ui_.drawn_lesson = lesson.entry.id;
    if (ImGui::Button(w("back").c_str())) {
      ui_.lab.lesson.clear();
      return;
    }
    tooltip(ctx.tr("lessons.back_tip"));
    ImGui::SameLine();
    ImGui::PushFont(heading_font_);
    ImGui::TextUnformatted(lesson.entry.title.in(language()).c_str());
    ImGui::PopFont();
    if (lesson.broken()) {
      ImGui::PushStyleColor(ImGuiCol_Text, pal.bad);
      text_wrapped("%s", w("broken_help").c_str());
      for (const auto& p : lesson.problems) text_wrapped("%s", p.text().c_str());
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

    // A wide window puts the lesson's labs beside its text (the right half was empty); the
    // text keeps its reading width.
    const std::vector<LessonLabLink> lab_links = lessons_lab_links(lesson.text(language()));
    const float scale = ctx.ui_scale();
    const float text_w = markdown_reading_width() + ImGui::GetStyle().ScrollbarSize +
                         2 * ImGui::GetStyle().WindowPadding.x;
    const float avail_w = ImGui::GetContentRegionAvail().x;
    const bool column = !lab_links.empty() && avail_w >= text_w + 300.0f * scale;
    ui_.lab_links_drawn = -1;
    const float left_w = column ? std::max(text_w, avail_w * 0.5f) : 0.0f;
    auto labs_column = [&] {
      if (!column) return;
      ImGui::SameLine();
      ImGui::BeginChild("##labs", ImVec2(0, 0), false);
      lessons_labs_column(ctx, ui_, heading_font_, lab_links,
                          std::min(ImGui::GetContentRegionAvail().x, 560.0f * scale));
      ImGui::EndChild();
    };
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
        // The scrollbar is always there, so the wrap width never changes under the text.
        ImGui::BeginChild("##text", ImVec2(left_w, 0), false,
                          ImGuiWindowFlags_AlwaysVerticalScrollbar);
        int links = 0;
        MdView view(ctx, pal, links, markdown_reading_width());
        ui_.blocks_drawn = lessons_text(ctx, ui_, heading_font_, lesson, lp, view, pal);
        ImGui::Spacing();
        if (ImGui::Button((w("quiz") + " >").c_str())) {
          ui_.lab.view = LessonsView::quiz;
          ui_.select_view = true;
          ctx.request_frames(3);  // the tab switches next frame: draw it without a mouse move
        }
        ImGui::EndChild();
        labs_column();
        ImGui::PopID();
        ImGui::EndTabItem();
      }
      if (ImGui::BeginTabItem(quiz_tab.c_str(), nullptr, quiz_flags)) {
        if (!pick) ui_.lab.view = LessonsView::quiz;
        ImGui::PushID(lesson.entry.id.c_str());
        ImGui::BeginChild("##quiz", ImVec2(left_w, 0), false,
                          ImGuiWindowFlags_AlwaysVerticalScrollbar);
        lessons_quiz(ctx, ui_, heading_font_, lesson, lp, pal);
        ImGui::EndChild();
        labs_column();
        ImGui::PopID();
        ImGui::EndTabItem();
      }
      ImGui::EndTabBar();
    }
  }

  LessonsUi ui_;
  ImFont* heading_font_ = nullptr;  // the shell's heading font, refreshed every frame
  bool developer_ = false;          // ctx.developer(), refreshed every frame
  const char* saved_here_ = "";     // "saved on this computer", refreshed every frame
};

}  // namespace

std::unique_ptr<Panel> make_lessons_panel() {
  return std::make_unique<LessonsPanel>();
}

}  // namespace poslab::app
