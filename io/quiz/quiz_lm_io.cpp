// Loading and measuring the models of the quiz's model-backed questions (see quiz_lm_io.hpp).
#include "io/quiz/quiz_lm_io.hpp"

#include <algorithm>
#include <filesystem>

#include "core/common/errors.hpp"
#include "io/length/length_lab_io.hpp"

namespace poslab::io {

QuizLmSource quiz_lm_open(const std::vector<std::string>& generators) {
  QuizLmSource out;
  for (const std::string& g : generators)
    for (lm::LengthModelId id : quiz_lm_models(g)) {
      if (std::find(out.wanted.begin(), out.wanted.end(), id) != out.wanted.end()) continue;
      const std::string path = length_model_path(id);
      std::error_code ec;
      if (std::filesystem::is_regular_file(path, ec))
        out.wanted.push_back(id);
      else
        out.missing.push_back(
            {id, path + " is missing: the models ship with PosLab; reinstall it, or set "
                        "POSLAB_MODELS_DIR to a folder that has them"});
    }
  if (out.wanted.empty()) return out;
  try {
    out.data = length_lab_load();
  } catch (const Error& e) {  // a damaged model or the held-out text: every question says so
    for (lm::LengthModelId id : out.wanted) out.missing.push_back({id, e.what()});
    out.wanted.clear();
  }
  return out;
}

QuizLmData quiz_lm_load(const std::vector<std::string>& generators,
                        const std::atomic<bool>* cancel) {
  QuizLmSource source = quiz_lm_open(generators);
  QuizLmData measured = quiz_lm_measure(source.data, source.wanted, cancel);
  measured.missing = std::move(source.missing);
  return measured;
}

}  // namespace poslab::io
