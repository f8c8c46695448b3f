// The lessons panel's state that a preset restores: which lesson is open (none = the
// catalog), in which language, and whether its text or its quiz is shown. Lessons can
// link to each other with these presets ("lessons?lesson=04-relative-proof&view=quiz").
#pragma once
#include <string>
#include <vector>

#include "core/common/preset_fields.hpp"
#include "core/quiz/quiz.hpp"

namespace poslab {

enum class LessonsView { text, quiz };

struct LessonsLabSettings {
  std::string lesson;                // lesson id (a folder name: a-z, 0-9, -, _), empty = catalog
  Language language = Language::en;  // en | zh
  LessonsView view = LessonsView::text;

  bool operator==(const LessonsLabSettings&) const = default;
};

inline constexpr const char* kLessonsLabName = "lessons";

const std::vector<std::string>& lessons_language_names();  // "en", "zh"
const std::vector<std::string>& lessons_view_names();      // "text", "quiz"

// Every preset field of the panel, in the order presets write them.
const PresetTable<LessonsLabSettings>& lessons_preset_fields();
std::string lessons_to_preset(const LessonsLabSettings& s);
// Throws InputError naming the key; whether the lesson exists is for the caller to check
// (the core does not read lesson files).
LessonsLabSettings lessons_from_preset(const std::string& text,
                                       const LessonsLabSettings& base = {});

}  // namespace poslab
