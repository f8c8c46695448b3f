// Dispatch from a preset's lab name to that lab's codec (see labs.hpp).
#include "core/labs.hpp"

#include <functional>
#include <utility>

#include "core/attention/attention_lab.hpp"
#include "core/bnb/arena_lab.hpp"
#include "core/common/errors.hpp"
#include "core/common/names.hpp"
#include "core/common/preset.hpp"
#include "core/common/preset_messages.hpp"
#include "core/kv/kv_lab.hpp"
#include "core/kv/kv_trained.hpp"
#include "core/lm/length_lab.hpp"
#include "core/quiz/lessons_lab.hpp"
#include "core/rope/wheels_lab.hpp"
#include "core/wm/dream_lab.hpp"

namespace poslab {
namespace {

using Canonicalise = std::function<std::string(const std::string&)>;

const std::vector<std::pair<std::string, Canonicalise>>& codecs() {
  static const std::vector<std::pair<std::string, Canonicalise>> all{
      {kWheelsLabName,
       [](const std::string& t) { return wheels_to_preset(wheels_from_preset(t)); }},
      {bnb::kArenaLabName,
       [](const std::string& t) { return bnb::arena_to_preset(bnb::arena_from_preset(t)); }},
      {kKvLabName,
       [](const std::string& t) {  // the random-weights source, or the trained one
         return kv_preset_is_trained(t) ? kv_trained_to_preset(kv_trained_from_preset(t))
                                        : kv_to_preset(kv_from_preset(t));
       }},
      {kAttentionLabName,
       [](const std::string& t) { return attention_to_preset(attention_from_preset(t)); }},
      {kLessonsLabName,
       [](const std::string& t) { return lessons_to_preset(lessons_from_preset(t)); }},
      {wm::kDreamLabName,
       [](const std::string& t) { return wm::dreams_to_preset(wm::dreams_from_preset(t)); }},
      {lm::kLengthLabName,
       [](const std::string& t) { return lm::length_to_preset(lm::length_from_preset(t)); }},
  };
  return all;
}

}  // namespace

std::vector<std::string> lab_names() {
  std::vector<std::string> names;
  for (const auto& [name, codec] : codecs()) names.push_back(name);
  return names;
}

std::string lab_preset_canonical(const std::string& preset) {
  const std::string lab = preset_lab(preset);
  for (const auto& [name, codec] : codecs())
    if (name == lab) return codec(preset);
  throw InputError(preset_message("errors.preset.unknown_lab",
                                  {message_arg("preset", preset), message_arg("lab", lab),
                                   message_arg("labs", join(lab_names()))}));
}

}  // namespace poslab
