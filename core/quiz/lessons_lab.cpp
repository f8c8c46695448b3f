// Preset codec of the lessons panel (see lessons_lab.hpp).
#include "core/quiz/lessons_lab.hpp"

#include <algorithm>

#include "core/common/errors.hpp"
#include "core/common/preset.hpp"

namespace poslab {

const std::vector<std::string>& lessons_language_names() {
  static const std::vector<std::string> n{"en", "zh"};
  return n;
}

const std::vector<std::string>& lessons_view_names() {
  static const std::vector<std::string> n{"text", "quiz"};
  return n;
}

std::string lessons_to_preset(const LessonsLabSettings& s) {
  const LessonsLabSettings d;
  PresetWriter w(kLessonsLabName);
  if (s.lesson != d.lesson) w.add_text("lesson", s.lesson);
  if (s.language != d.language)
    w.add_text("lang", lessons_language_names()[static_cast<int>(s.language)]);
  if (s.view != d.view) w.add_text("view", lessons_view_names()[static_cast<int>(s.view)]);
  return w.str();
}

LessonsLabSettings lessons_from_preset(const std::string& text, const LessonsLabSettings& base) {
  LessonsLabSettings s = base;
  PresetReader in(text, kLessonsLabName);
  in.read_text("lesson", s.lesson);
  int lang = static_cast<int>(s.language), view = static_cast<int>(s.view);
  in.read_choice("lang", lang, lessons_language_names());
  in.read_choice("view", view, lessons_view_names());
  s.language = static_cast<Language>(lang);
  s.view = static_cast<LessonsView>(view);
  in.finish();
  const bool id_ok = std::all_of(s.lesson.begin(), s.lesson.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
  });
  if (!id_ok)
    throw InputError("lessons.lesson = \"" + s.lesson +
                     "\": a lesson id holds only a-z, 0-9, - and _");
  return s;
}

}  // namespace poslab
