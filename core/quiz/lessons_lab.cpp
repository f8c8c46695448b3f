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

const PresetTable<LessonsLabSettings>& lessons_preset_fields() {
  using S = LessonsLabSettings;
  static const PresetTable<S> t{
      preset_field<S>(
          "lesson", [](auto& s) -> auto& { return s.lesson; },
          "lesson id (a folder name), empty = the catalog"),
      preset_choice<S>(
          "lang", [](auto& s) -> auto& { return s.language; }, lessons_language_names(),
          "language of the lesson text"),
      preset_choice<S>(
          "view", [](auto& s) -> auto& { return s.view; }, lessons_view_names(),
          "the lesson's text or its quiz"),
  };
  return t;
}

std::string lessons_to_preset(const LessonsLabSettings& s) {
  PresetWriter w(kLessonsLabName);
  preset_write(w, lessons_preset_fields(), s, LessonsLabSettings{});
  return w.str();
}

LessonsLabSettings lessons_from_preset(const std::string& text, const LessonsLabSettings& base) {
  LessonsLabSettings s = base;
  PresetReader in(text, kLessonsLabName);
  preset_read(in, lessons_preset_fields(), s);
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
