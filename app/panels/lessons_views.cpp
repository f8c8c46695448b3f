// The lessons lab's shared helpers (language, words, parsed Markdown, saving progress), the
// lesson's text and its labs column; the quiz view is lessons_quiz_view.cpp.
#include "app/panels/lessons_views.hpp"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/widgets.hpp"
#include "core/common/errors.hpp"
#include "core/common/preset.hpp"
#include "io/data/data_dir.hpp"
#include "io/length/length_lab_io.hpp"
#include "io/lessons/progress_file.hpp"
#include "io/lessons/quiz_feedback.hpp"
#include "io/quiz/quiz_lm_io.hpp"

namespace poslab::app {

Language lessons_language(const LessonsUi& u) {
  return u.lab.language == Language::zh && u.cjk ? Language::zh : Language::en;
}

std::string lessons_word(const LessonsUi& u, const std::string& key) {
  return u.words.get(key, lessons_language(u));
}

const io::MdDocument& lessons_md(LessonsUi& u, const std::string& text) {
  auto it = u.md_cache.find(text);
  if (it == u.md_cache.end()) it = u.md_cache.emplace(text, io::parse_markdown(text)).first;
  return it->second;
}

namespace {

// `merged` taken into `into` value by value, so every lesson and answer record keeps its
// address: the quiz drawing holds references to them across a save (ensure_seed, Check
// answer), and replacing the maps freed what they pointed to (the browser build trapped on
// it). A merge never removes anything, so nothing `into` holds goes away.
void progress_assign_in_place(Progress& into, const Progress& merged) {
  into.language = merged.language;
  for (const auto& [id, from] : merged.lessons) {
    LessonProgress& to = into.lessons[id];
    to.checklist = from.checklist;
    to.completed = from.completed;
    for (const auto& [qid, answer] : from.answers) to.answers[qid] = answer;
  }
}

}  // namespace

void lessons_save(AppContext& ctx, LessonsUi& u) {
  u.progress.language = u.lab.language == Language::zh ? "zh" : "en";
  if (u.headless || u.progress_file.empty())
    return;  // checks and captures leave the user's file alone
  try {
    // Another window (or poslab-cli) may have saved answers since: merged, not overwritten.
    progress_assign_in_place(
        u.progress, io::save_progress_merged(u.progress_file, u.progress_base, u.progress));
    u.progress_base = u.progress;
  } catch (const Error& e) {
    ctx.report_error(lessons_word(u, "save_failed"), e.what());
  }
}

int lessons_text(AppContext& ctx, LessonsUi& u, ImFont* heading_font, const io::Lesson& lesson,
                 LessonProgress& lp, MarkdownView& view, const TextPalette& pal) {
  const io::MdDocument& doc = lesson.text(lessons_language(u));
  int drawn = 0, folded = 0;
  size_t at = 0;
  for (const auto& c : io::markdown_predict_callouts(doc)) {
    drawn += view.document(doc, at, c.block);
    const Question* q = lesson.find_question(c.id);  // the loader checked it is a predict
    ImGui::PushID(static_cast<int>(c.block) + 5000);
    if (q != nullptr) lessons_predict_callout(ctx, u, heading_font, lesson, *q, lp, view, pal);
    ImGui::PopID();
    ++drawn;
    // Made once, the prediction keeps the answer open (a retry does not fold it again).
    const bool made = q == nullptr || lp.answers[q->id].attempts > 0;
    at = c.block + 1;
    if (!made && c.fold_end > at) {  // the rest, later callouts included, waits for it
      folded += static_cast<int>(c.fold_end - at);
      ImGui::TextDisabled("%s", lessons_word(u, "predict_folded").c_str());
      ImGui::Dummy(ImVec2(0, ImGui::GetFontSize() * 0.5f));
      at = c.fold_end;
      break;
    }
  }
  drawn += view.document(doc, at, doc.blocks.size());
  u.blocks_folded = folded;
  return drawn;
}

std::vector<LessonLabLink> lessons_lab_links(const io::MdDocument& doc) {
  std::vector<LessonLabLink> out;
  auto add = [&out](const std::vector<io::MdSpan>& spans) {
    std::string text, target;
    auto flush = [&] {
      if (target.rfind(io::kLabLinkPrefix, 0) == 0) {
        const std::string preset = target.substr(std::string(io::kLabLinkPrefix).size());
        const bool seen = std::any_of(out.begin(), out.end(),
                                      [&](const LessonLabLink& l) { return l.preset == preset; });
        if (!seen) out.push_back({text, preset});
      }
      text.clear();
      target.clear();
    };
    for (const io::MdSpan& sp : spans) {  // a link's words may be several styled spans
      if (sp.link != target) flush();
      target = sp.link;
      if (!sp.link.empty()) text += sp.text;
    }
    flush();
  };
  for (const io::MdBlock& b : doc.blocks) {
    add(b.spans);
    for (const auto& cell : b.cells) add(cell);
  }
  return out;
}

void lessons_labs_column(AppContext& ctx, LessonsUi& u, ImFont* heading_font,
                         const std::vector<LessonLabLink>& links, float width) {
  ImGui::PushFont(heading_font);
  ImGui::TextUnformatted(lessons_word(u, "labs_in_lesson").c_str());
  ImGui::PopFont();
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  text_wrapped("%s", lessons_word(u, "labs_in_lesson_note").c_str());
  ImGui::PopStyleColor();
  // One group per lab, in the order the lesson first opens it.
  std::vector<std::string> labs;
  for (const LessonLabLink& l : links) {
    const std::string lab = preset_lab(l.preset);
    if (std::find(labs.begin(), labs.end(), lab) == labs.end()) labs.push_back(lab);
  }
  const std::filesystem::path dir = io::welcome_dir();
  const float pad = 2 * ImGui::GetStyle().FramePadding.x;
  int drawn = 0;
  for (const std::string& lab : labs) {
    ImGui::Spacing();
    ImGui::Separator();
    const std::string title_key = "title." + lab;
    ImGui::TextUnformatted(ctx.tr(title_key.c_str()));
    auto& pic = u.lab_pictures[lab];
    if (!pic) pic = std::make_unique<gfx::ImageTexture>();
    const LessonLabLink* first = nullptr;
    for (const LessonLabLink& l : links)
      if (preset_lab(l.preset) == lab) {
        first = &l;
        break;
      }
    if (pic->load((dir / (lab + ".png")).string()) && first != nullptr) {
      // The lab's picture opens its first link; a tall picture shows its top part.
      const float w = std::max(64.0f, width - pad);
      const float h = w * static_cast<float>(pic->height()) / static_cast<float>(pic->width());
      const float shown_h = std::min(h, w * 0.5f);
      ImGui::PushID(lab.c_str());
      if (ImGui::ImageButton(pic->texture(), ImVec2(w, shown_h), ImVec2(0, 0),
                             ImVec2(1, shown_h / h)))
        ctx.open_lab(first->preset);
      ImGui::PopID();
      tooltip(first->preset.c_str());
    }
    for (const LessonLabLink& l : links) {
      if (preset_lab(l.preset) != lab) continue;
      ImGui::PushID(l.preset.c_str());
      // The column's width: long link words are clipped, the tooltip has them whole.
      const std::string label = l.text.empty() ? l.preset : l.text;
      if (ImGui::Button(label.c_str(), ImVec2(width - pad, 0))) ctx.open_lab(l.preset);
      tooltip((label + "\n" + l.preset).c_str());
      ImGui::PopID();
      ++drawn;
    }
  }
  u.lab_links_drawn = drawn;
}

}  // namespace poslab::app
