// Lesson quizzes (quiz.toml, toml++): problems are collected, never thrown.
#include <vector>

#include "fuzz/fuzz_common.hpp"
#include "io/lessons/lesson_files.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = fuzz_text(data, size);
  std::vector<poslab::io::LessonProblem> problems;
  POSLAB_FUZZ_BODY((void)poslab::io::parse_quiz(text, "fuzz/quiz.toml", problems));
  return 0;
}
