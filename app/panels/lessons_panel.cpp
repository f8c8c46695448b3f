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
#include "app/widgets.hpp"
#include "app/widgets/markdown_view.hpp"
#include "app/widgets/tr_args.hpp"
#include "core/common/errors.hpp"
#include "core/common/preset.hpp"
#include "core/quiz/lessons_lab.hpp"
#include "core/quiz/numeric.hpp"
#include "core/quiz/progress.hpp"
#include "io/lessons/lesson_files.hpp"
#include "io/lessons/progress_file.hpp"
#include "io/lessons/quiz_feedback.hpp"

namespace poslab::app {
namespace {

using namespace poslab::io;
using Palette = TextPalette;
using MdView = MarkdownView;

// What the learner is typing or looking at for one question (not saved; the answers are).
struct QuestionUi {
  std::vector<bool> picks;       // choice kinds: options ticked for the next check
  std::string number;            // numeric: the text typed
  bool number_bad = false;       // numeric: the text did not parse
  std::string open_text;         // open: the learner's answer being written
  bool reference_shown = false;  // open: the reference and checklist are visible
  int tries = 0;                 // choice, numeric: answers given in this attempt so far
  bool reveal_asked = false;     // choice, numeric: explanations or solution asked for
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
  std::mt19937_64 rng{std::random_device{}()};   // seeds of new attempts (not content)
  // For check_state: what the last frame drew.
  std::string drawn_lesson;
  int blocks_drawn = -1;
  int questions_drawn = -1;
  int catalog_rows_drawn = -1;
};

// ---- the panel ----------------------------------------------------------------------------
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
      if (!loaded.backup_path.empty())  // the notice, in the lessons' language
        ctx.report_error(w("progress_where"),
                         tr_args(w("progress_corrupt"),
                                 {{"reason", loaded.reason}, {"kept", loaded.backup_path}}));
      else if (!loaded.notice.empty())
        ctx.report_error(w("progress_where"), loaded.notice);
    } catch (const Error& e) {
      ctx.report_error(w("progress_where"), e.what());
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
    tooltip(ctx.tr("lessons.language_tip"));
    ImGui::SameLine();
    ImGui::BeginDisabled(!ui_.cjk);
    if (ImGui::RadioButton(ui_.cjk ? "中文" : "Chinese",
                           ui_.lab.language == Language::zh && ui_.cjk)) {
      ui_.lab.language = Language::zh;
      save(ctx);
    }
    ImGui::EndDisabled();
    tooltip(ctx.tr("lessons.language_tip"));
    if (!ui_.cjk) {
      ImGui::SameLine();
      ImGui::TextDisabled("%s", ui_.words.get("no_cjk_font", Language::en).c_str());
    }
    ImGui::SameLine(0, ImGui::GetFontSize() * 2);
    if (ImGui::SmallButton(w("reload").c_str())) reload();
    tooltip(ctx.tr("lessons.reload_tip"));
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
        wrapped_text(l.entry.summary.in(language()));
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
    ImGui::TextDisabled("%s: %s", w("progress_note").c_str(),
                        ui_.headless ? w("not_saved_headless").c_str() : ui_.progress_file.c_str());
  }

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
        ImGui::BeginChild("##text", ImVec2(0, 0), false, ImGuiWindowFlags_AlwaysVerticalScrollbar);
        int links = 0;
        MdView view(ctx, pal, links, markdown_reading_width());
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
        ImGui::BeginChild("##quiz", ImVec2(0, 0), false, ImGuiWindowFlags_AlwaysVerticalScrollbar);
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
    MdView view(ctx, pal, links, markdown_reading_width());
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
        qu.tries = rec.answered ? 1 : 0;
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

  // A fresh attempt needs its own seed: it draws the option order (choice) or the
  // parameters (numeric).
  void ensure_seed(AppContext& ctx, AnswerRecord& rec) {
    if (rec.seed == 0 && !rec.answered) {
      rec.seed = fresh_seed();
      save(ctx);
    }
  }

  // "Missed: B" / "Wrong: C" in this attempt's letters.
  void option_letters_line(const std::string& label, const std::vector<int>& declared,
                           const std::vector<int>& order, const ImVec4& colour) {
    if (declared.empty()) return;
    std::string text = label;
    for (int shown : quiz_declared_to_shown(order, declared))
      text.append(" ").append(quiz_option_letter(shown));
    ImGui::TextColored(colour, "%s", text.c_str());
  }

  void choice(AppContext& ctx, const Question& q, AnswerRecord& rec, QuestionUi& qu, MdView& view,
              const Palette& pal) {
    ensure_seed(ctx, rec);
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
      tooltip(q.preset.c_str());
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
    const bool reveal =
        rec.answered && quiz_reveal_explanations(q, verdict.correct, qu.tries, qu.reveal_asked);
    // Options in this attempt's shuffled order; picks and records use declared indices.
    const std::vector<int> order = quiz_option_order(q, rec.seed);
    for (size_t k = 0; k < order.size(); ++k) {
      const size_t i = static_cast<size_t>(order[k]);
      ImGui::PushID(static_cast<int>(i));
      const std::string letter = quiz_option_letter(static_cast<int>(k)) + ".";
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
      // Before the reveal only the learner's own picks are marked (right or wrong).
      const ImVec4 colour = !rec.answered ? ImGui::GetStyleColorVec4(ImGuiCol_Text)
                            : reveal && q.options[i].correct      ? pal.good
                            : qu.picks[i] && q.options[i].correct ? pal.good
                            : qu.picks[i]                         ? pal.bad
                                                                  : pal.muted;
      ImGui::PushStyleColor(ImGuiCol_Text, colour);
      const MdDocument& text = md(q.options[i].text.in(language()));
      view.spans(text.blocks.empty() ? std::vector<MdSpan>{} : text.blocks.front().spans);
      ImGui::PopStyleColor();
      if (rec.answered && ((reveal && q.options[i].correct) || qu.picks[i])) {
        // Words as well as colours: right answer, and what was chosen.
        std::string mark = reveal && q.options[i].correct ? w("mark_correct") : std::string();
        if (qu.picks[i]) mark += (mark.empty() ? "" : "  ") + w("mark_chosen");
        ImGui::TextColored(q.options[i].correct ? pal.good : pal.bad, "%s", mark.c_str());
      }
      if (reveal) {
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
        qu.tries += 1;
        save(ctx);
      }
      ImGui::EndDisabled();
      return;
    }
    feedback_line(verdict.correct, pal);
    if (!verdict.correct) {
      option_letters_line(w("missed_options"), verdict.missed, order, pal.bad);
      option_letters_line(w("wrong_options"), verdict.wrong, order, pal.bad);
    }
    if (!reveal) {
      std::string left = w("tries_left");
      if (const size_t at = left.find("{n}"); at != std::string::npos)
        left.replace(at, 3, std::to_string(quiz_tries_before_reveal(q) - qu.tries));
      ImGui::TextDisabled("%s", left.c_str());
      if (ImGui::Button(w("retry").c_str())) {
        quiz_retry(rec, rec.seed);  // same order: this is another try of the same attempt
        std::fill(qu.picks.begin(), qu.picks.end(), false);
        save(ctx);
      }
      ImGui::SameLine();
      if (ImGui::Button(w("show_explanations").c_str())) qu.reveal_asked = true;
      return;
    }
    if (!q.explain.in(language()).empty()) view.document(md(q.explain.in(language())));
    if (q.kind == QuestionKind::predict) {
      ImGui::TextColored(pal.heading, "%s", w("reveal").c_str());
      view.document(md(q.reveal.in(language())));
      const std::string& target = q.reveal_preset.empty() ? q.preset : q.reveal_preset;
      if (ImGui::Button(w("show_in_lab").c_str())) ctx.open_lab(target);
      tooltip(target.c_str());
      ImGui::SameLine();
    }
    if (ImGui::Button(w("retry").c_str())) {
      quiz_retry(rec, fresh_seed());  // a new attempt: the options are shuffled again
      std::fill(qu.picks.begin(), qu.picks.end(), false);
      qu.tries = 0;
      qu.reveal_asked = false;
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

  std::uint64_t fresh_seed() {
    const std::uint64_t s = ui_.headless ? 1 : ui_.rng();
    return s == 0 ? 1 : s;  // 0 means "no attempt yet"
  }

  void numeric(AppContext& ctx, const Lesson& lesson, const Question& q, AnswerRecord& rec,
               QuestionUi& qu, MdView& view, const Palette& pal) {
    ensure_seed(ctx, rec);
    const NumericQuestion& nq = *numeric_question(lesson, q, rec);
    view.document(md(quiz_fill_template(q.prompt.in(language()), nq)));
    const std::string unit = q.unit.in(language());
    const std::string precision = numeric_precision_text(nq, q.unit, ui_.words, language());
    if (!rec.answered) {
      ImGui::TextDisabled("%s", precision.c_str());
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
          qu.tries += 1;
          save(ctx);
        } catch (const InputError&) {
          qu.number_bad = true;
        }
      }
      if (qu.number_bad) ImGui::TextColored(pal.bad, "%s", w("not_a_number").c_str());
      return;
    }
    const NumericVerdict v = quiz_check_numeric(nq, rec.number);
    const bool reveal = quiz_reveal_explanations(q, v.correct, qu.tries, qu.reveal_asked);
    feedback_line(v.correct, pal);
    ImGui::Text("%s: %s %s", w("your_answer").c_str(), format_double(rec.number).c_str(),
                unit.c_str());
    const auto mistakes = numeric_mistake_notes(nq, rec.number, ui_.words, language());
    if (!mistakes.empty()) {
      ImGui::TextColored(pal.bad, "%s", w("looks_like").c_str());
      ImGui::Indent(ImGui::GetFontSize());
      for (const auto& m : mistakes) view.document(md(m.text));
      ImGui::Unindent(ImGui::GetFontSize());
    }
    if (!reveal) {
      ImGui::TextDisabled("%s", precision.c_str());
      std::string left = w("tries_left");
      if (const size_t at = left.find("{n}"); at != std::string::npos)
        left.replace(at, 3, std::to_string(quiz_tries_before_reveal(q) - qu.tries));
      ImGui::TextDisabled("%s", left.c_str());
      if (ImGui::Button(w("retry").c_str())) {
        quiz_retry(rec, rec.seed);  // same numbers
        qu.number.clear();
        save(ctx);
      }
      ImGui::SameLine();
      if (ImGui::Button(w("show_solution").c_str())) qu.reveal_asked = true;
      return;
    }
    ImGui::Text("%s: %s %s   (%s ±%s)", w("expected").c_str(), quiz_value_text(v.expected).c_str(),
                unit.c_str(), w("tolerance").c_str(), quiz_value_text(v.tolerance).c_str());
    if (!nq.steps.empty()) {
      std::string steps = w("steps") + ":";
      for (size_t k = 0; k < nq.steps.size(); ++k)
        steps += std::string(k ? ";" : "") + "  " + nq.steps[k].label + " = " +
                 quiz_value_text(nq.steps[k].value);
      ImGui::PushStyleColor(ImGuiCol_Text, pal.muted);
      ImGui::PushTextWrapPos(view.right_edge());
      text_wrapped("%s", steps.c_str());
      ImGui::PopTextWrapPos();
      ImGui::PopStyleColor();
    }
    ImGui::PushStyleColor(ImGuiCol_Text, pal.muted);
    view.document(md(quiz_fill_template(q.explain.in(language()), nq, true)));
    ImGui::PopStyleColor();
    if (ImGui::Button(w("new_numbers").c_str())) {
      quiz_retry(rec, fresh_seed());
      qu.number.clear();
      qu.tries = 0;
      qu.reveal_asked = false;
      save(ctx);
    }
  }

  void open(AppContext& ctx, const Question& q, AnswerRecord& rec, QuestionUi& qu, MdView& view,
            const Palette& pal) {
    view.document(md(q.prompt.in(language())));
    ImGui::TextDisabled("%s", w("open_hint").c_str());
    const float box_width =
        std::max(ImGui::GetFontSize() * 10, view.right_edge() - ImGui::GetCursorPosX());
    if (ImGui::InputTextMultiline("##answer", &qu.open_text,
                                  ImVec2(box_width, ImGui::GetTextLineHeight() * 6)))
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
