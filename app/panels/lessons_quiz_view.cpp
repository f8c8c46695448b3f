// The lessons lab's quiz view: each question (single and multiple choice, predict, spot the
// error, numeric with generated parameters, open with a reference and a self-check) with its
// feedback, retries and reveal, then the lesson's completion checklist. Grading, scores and
// generated numbers come from core/quiz; progress is written by io/lessons.
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/panels/lessons_views.hpp"
#include "app/widgets.hpp"
#include "core/common/errors.hpp"
#include "core/common/preset.hpp"
#include "io/data/data_dir.hpp"
#include "io/length/length_lab_io.hpp"
#include "io/lessons/progress_file.hpp"
#include "io/lessons/quiz_feedback.hpp"
#include "io/quiz/quiz_lm_io.hpp"

namespace poslab::app {

namespace {

// The quiz tab's drawing, moved from the panel: the members read and write the panel's
// LessonsUi and save through lessons_save.
class LessonsQuizView {
 public:
  using Palette = TextPalette;
  using MdView = MarkdownView;
  using Lesson = io::Lesson;
  using MdDocument = io::MdDocument;
  using MdSpan = io::MdSpan;

  LessonsQuizView(LessonsUi& ui, ImFont* heading_font) : ui_(ui), heading_font_(heading_font) {}

  void quiz(AppContext& ctx, const Lesson& lesson, LessonProgress& lp, const Palette& pal) {
    int links = 1000;
    MdView view(ctx, pal, links, markdown_reading_width());
    if (!lesson.quiz.pretest.empty()) pretest(ctx, lesson, lp, view, pal);
    int drawn = 0;
    for (size_t n = 0; n < lesson.quiz.questions.size(); ++n) {
      const Question& q = lesson.quiz.questions[n];
      if (lesson.predicted_in_text(q.id)) continue;  // asked in the text, before its answer
      ImGui::PushID(q.id.c_str());
      std::string header = w("question_n");
      if (const size_t at = header.find("{n}"); at != std::string::npos)
        header.replace(at, 3, std::to_string(drawn + 1));
      ImGui::Dummy(ImVec2(0, ImGui::GetFontSize() * 0.4f));
      ImGui::PushFont(heading_font_);
      ImGui::TextColored(pal.heading, "%s", header.c_str());
      ImGui::PopFont();
      ImGui::SameLine();
      ImGui::TextDisabled("%s", w("kind_" + quiz_kind_name(q.kind)).c_str());
      AnswerRecord& rec = lp.answers[q.id];
      QuestionUi& qu = question_ui(ctx, lesson.entry.id + "/" + q.id, q, rec);
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

  // A Predict callout in the lesson text: a card with the question, drawn where the text
  // asks it; the text after it is folded by lessons_text until the prediction is made.
  void callout(AppContext& ctx, const Lesson& lesson, const Question& q, LessonProgress& lp,
               MdView& view, const Palette& pal) {
    AnswerRecord& rec = lp.answers[q.id];
    QuestionUi& qu = question_ui(ctx, lesson.entry.id + "/" + q.id, q, rec);
    const float pad = ImGui::GetFontSize() * 0.5f;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->ChannelsSplit(2);  // the card's background goes under the text drawn first
    dl->ChannelsSetCurrent(1);
    ImGui::Dummy(ImVec2(0, pad));
    const ImVec2 top = ImGui::GetCursorScreenPos();
    ImGui::Indent(pad);
    ImGui::BeginGroup();
    ImGui::PushFont(heading_font_);
    ImGui::TextColored(pal.heading, "%s", w("predict_title").c_str());
    ImGui::PopFont();
    choice(ctx, q, rec, qu, view, pal);
    ImGui::EndGroup();
    ImGui::Unindent(pad);
    const float bottom = ImGui::GetItemRectMax().y;
    dl->ChannelsSetCurrent(0);
    const float right = ImGui::GetWindowPos().x + view.right_edge();
    dl->AddRectFilled(ImVec2(top.x - pad * 0.5f, top.y - pad), ImVec2(right, bottom + pad),
                      ImGui::GetColorU32(pal.card_bg), pad);
    dl->AddRectFilled(ImVec2(top.x - pad * 0.5f, top.y - pad),
                      ImVec2(top.x - pad * 0.5f + 3.0f, bottom + pad),
                      ImGui::GetColorU32(pal.quote_bar));
    dl->ChannelsMerge();
    ImGui::Dummy(ImVec2(0, pad * 1.5f));
  }

  // The pre-test (lesson 1): questions of later lessons answered here first, kept in this
  // lesson's progress under "pretest:<lesson>/<id>" (never scored), then the gain: how many
  // were right here, and how many are right now in their own lessons.
  void pretest(AppContext& ctx, const Lesson& lesson, LessonProgress& lp, MdView& view,
               const Palette& pal) {
    ImGui::PushFont(heading_font_);
    ImGui::TextColored(pal.heading, "%s", w("pretest_title").c_str());
    ImGui::PopFont();
    view.document(md(w("pretest_intro")));
    int before = 0, now = 0, n = 0;
    for (const QuestionRef& ref : lesson.quiz.pretest) {
      const io::Lesson* other = ui_.lib.find(ref.lesson);
      const Question* q = other ? other->find_question(ref.id) : nullptr;
      if (q == nullptr) continue;  // the loader reported it
      const std::string key = "pretest:" + ref.lesson + "/" + ref.id;
      AnswerRecord& rec = lp.answers[key];
      ImGui::PushID(key.c_str());
      std::string header = w("pretest_n");
      if (const size_t at = header.find("{n}"); at != std::string::npos)
        header.replace(at, 3, std::to_string(++n));
      ImGui::TextColored(pal.heading, "%s", header.c_str());
      ImGui::Indent(ImGui::GetFontSize());
      QuestionUi& qu = question_ui(ctx, lesson.entry.id + "/" + key, *q, rec);
      unscored_ = true;  // "1 point" or "½ point" would contradict "not scored"
      if (q->kind == QuestionKind::open)
        open(ctx, *q, rec, qu, view, pal);
      else
        choice(ctx, *q, rec, qu, view, pal);
      unscored_ = false;
      ImGui::Unindent(ImGui::GetFontSize());
      ImGui::PopID();
      before += rec.answered && rec.correct ? 1 : 0;
      const auto lit = ui_.progress.lessons.find(ref.lesson);
      if (lit != ui_.progress.lessons.end()) {
        const auto ait = lit->second.answers.find(ref.id);
        const bool right =
            ait != lit->second.answers.end() && ait->second.answered && ait->second.correct;
        now += right ? 1 : 0;
      }
    }
    std::string gain = w("pretest_gain");
    for (const auto& [k, v] : {std::pair<std::string, int>{"{before}", before},
                               {"{now}", now},
                               {"{total}", n},
                               {"{total}", n}})
      if (const size_t at = gain.find(k); at != std::string::npos)
        gain.replace(at, k.size(), std::to_string(v));
    ImGui::TextColored(now > before ? pal.good : pal.muted, "%s", gain.c_str());
    ImGui::Separator();
  }

  // The learner's UI state of one question, filled from the saved record the first time.
  QuestionUi& question_ui(AppContext& ctx, const std::string& key, const Question& q,
                          const AnswerRecord& rec) {
    QuestionUi& qu = ui_.questions[key];
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
    return qu;
  }

  void feedback_line(bool correct, const Palette& pal) {
    ImGui::PushFont(heading_font_);
    ImGui::TextColored(correct ? pal.good : pal.bad, "%s",
                       w(correct ? "correct" : "incorrect").c_str());
    ImGui::PopFont();
  }

  // What this answer earns against a first try (core/quiz's quiz_points): "1 point, right
  // on the first try", "½ point: right after 2 answers (a first try earns 1)", or, after a
  // wrong answer, what a right one would still earn.
  void points_line(bool correct, int attempts, const Palette& pal) {
    std::string text;
    if (correct) {
      text = w(attempts <= 1 ? "points_first_try" : "points_retry");
    } else {
      text = w("points_next");
    }
    for (const auto& [key, value] :
         {std::pair<std::string, std::string>{"{n}", std::to_string(attempts)},
          {"{points}", format_double(quiz_points(true, attempts + (correct ? 0 : 1)))},
          {"{full}", format_double(quiz_points(true, 1))}})
      if (const size_t at = text.find(key); at != std::string::npos)
        text.replace(at, key.size(), value);
    ImGui::TextColored(correct && attempts <= 1 ? pal.good : pal.muted, "%s", text.c_str());
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
    if (q.kind != QuestionKind::predict && !unscored_)
      points_line(verdict.correct, rec.attempts, pal);
    // No option is named before the reveal: "Missed: B, C" would be the answer.
    const ChoiceFeedback fb = quiz_choice_feedback(q, verdict, reveal);
    option_letters_line(w("missed_options"), fb.missed, order, pal.bad);
    option_letters_line(w("wrong_options"), fb.wrong, order, pal.bad);
    if (fb.right_count > 0) {
      std::string n = w("right_count");
      if (const size_t at = n.find("{n}"); at != std::string::npos)
        n.replace(at, 3, std::to_string(fb.right_count));
      ImGui::TextColored(pal.bad, "%s", n.c_str());
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

  // The curves of the model-backed questions: measured once in a background job (the
  // headless modes wait for it), nullptr while it runs. Its error becomes each question's
  // "unavailable" line, never a crash.
  const QuizLmData* lm_models(AppContext& ctx) {
    if (ui_.lm_models) return &*ui_.lm_models;
    // The browser build fetches the models and held-out text first (the desktop has them);
    // a file that could not be fetched is then named by the question as missing.
    if (!ui_.lm_fetched) {
      if (!ctx.fetch_files(io::length_lab_files()).done) {
        ctx.request_frames(2);
        return nullptr;
      }
      ui_.lm_fetched = true;
    }
    // The model-backed generators of every lesson (read when a measurement starts).
    const auto generators = [this] {
      std::vector<std::string> out;
      for (const io::Lesson& l : ui_.lib.lessons)
        for (const Question& q : l.quiz.questions)
          if (quiz_generator_uses_models(q.generator)) out.push_back(q.generator);
      return out;
    };
    if (!ui_.lm_job.running()) {
      // Steps: the models read, then a batch of 8 windows of one model's curve per step (a
      // worker thread runs them on the desktop, the frames in the browser).
      struct Run {
        io::QuizLmSource source;
        std::unique_ptr<QuizLmRun> run;
      };
      auto st = std::make_shared<Run>();
      ui_.lm_job.start_steps(
          "lm", [wanted = generators(), st](auto& control) -> std::optional<QuizLmData> {
            if (control.cancelled()) return QuizLmData{};  // dropped by poll
            if (!st->run) {
              st->source = io::quiz_lm_open(wanted);
              st->run = std::make_unique<QuizLmRun>(st->source.data, st->source.wanted);
              control.set_progress(0, static_cast<int64_t>(st->source.wanted.size()));
              return std::nullopt;
            }
            st->run->step();
            control.set_progress(st->run->models_done(),
                                 static_cast<int64_t>(st->source.wanted.size()));
            if (!st->run->done()) return std::nullopt;
            QuizLmData measured = st->run->take();
            measured.missing = std::move(st->source.missing);
            return measured;
          });
    }
    if (auto out = ui_.lm_job.poll(ctx)) {
      if (out->value) {
        ui_.lm_models = std::move(*out->value);
      } else if (!out->cancelled) {
        QuizLmData failed;
        for (int k = 0; k < lm::kLengthModelCount; ++k)
          failed.missing.push_back({static_cast<lm::LengthModelId>(k), out->error});
        ui_.lm_models = std::move(failed);
      }
    }
    return ui_.lm_models ? &*ui_.lm_models : nullptr;
  }

  // nullptr while the models of a model-backed question are being measured.
  const NumericQuestion* numeric_question(AppContext& ctx, const Lesson& lesson, const Question& q,
                                          AnswerRecord& rec) {
    const QuizLmData* models = nullptr;
    if (quiz_generator_uses_models(q.generator) && !(models = lm_models(ctx))) return nullptr;
    NumericCache& cache = ui_.numerics[lesson.entry.id + "/" + q.id];
    if (!cache.valid || cache.seed != rec.seed) {
      cache.valid = false;
      cache.seed = rec.seed;
      cache.question =
          quiz_generate(q.generator, rec.seed, models);  // throws only for an unknown generator
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
    const NumericQuestion* measured = numeric_question(ctx, lesson, q, rec);
    if (measured == nullptr) {
      ImGui::TextDisabled("%s", w("lm_measuring").c_str());
      return;
    }
    const NumericQuestion& nq = *measured;
    view.document(md(quiz_fill_template(q.prompt.in(language()), nq)));
    if (!nq.unavailable.empty()) {  // a model is missing: say which and how to get it
      ImGui::PushTextWrapPos(view.right_edge());
      ImGui::TextColored(pal.bad, "%s", w("lm_unavailable").c_str());
      text_wrapped("%s", nq.unavailable.c_str());
      ImGui::PopTextWrapPos();
      return;
    }
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
          quiz_answer_numeric(rec, q, parse_double(qu.number, "answer"),
                              ui_.lm_models ? &*ui_.lm_models : nullptr);
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
    if (!unscored_) points_line(v.correct, rec.attempts, pal);
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

 private:
  Language language() const { return lessons_language(ui_); }
  std::string w(const std::string& key) const { return lessons_word(ui_, key); }
  const io::MdDocument& md(const std::string& text) { return lessons_md(ui_, text); }
  void save(AppContext& ctx) { lessons_save(ctx, ui_); }

  LessonsUi& ui_;
  ImFont* heading_font_;   // the shell's heading font of this frame
  bool unscored_ = false;  // drawing the pre-test: no points line (it is never scored)
};

}  // namespace

void lessons_quiz(AppContext& ctx, LessonsUi& u, ImFont* heading_font, const io::Lesson& lesson,
                  LessonProgress& lp, const TextPalette& pal) {
  LessonsQuizView(u, heading_font).quiz(ctx, lesson, lp, pal);
}

void lessons_predict_callout(AppContext& ctx, LessonsUi& u, ImFont* heading_font,
                             const io::Lesson& lesson, const Question& q, LessonProgress& lp,
                             MarkdownView& view, const TextPalette& pal) {
  LessonsQuizView(u, heading_font).callout(ctx, lesson, q, lp, view, pal);
}

}  // namespace poslab::app
