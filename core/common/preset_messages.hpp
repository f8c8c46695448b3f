// Every error a preset or a named value can raise (what a user hits typing or pasting a
// preset), as message ids with English templates (core/common/message.hpp). preset.cpp,
// names.hpp, preset_fields.hpp, param_range.hpp and labs.cpp throw them; the app shows them
// through assets/i18n/<lang>/errors.toml, whose English equals these templates
// (tests/app/messages_test.cpp), so the CLI's English never changes.
#pragma once
#include <string>
#include <vector>

#include "core/common/message.hpp"

namespace poslab {

inline constexpr MessageTemplate kPresetMessages[] = {
    // The preset string itself (preset.cpp, labs.cpp).
    {"errors.preset.bad_escape",
     "preset: bad percent escape near \"{near}\" (use %XX with two hex digits)"},
    {"errors.preset.control_escape",
     "preset: the escape \"{near}\" is a control character, which no preset value may hold"},
    {"errors.preset.missing_lab", "preset \"{preset}\": missing lab name before '?'"},
    {"errors.preset.lab_chars", "preset: lab name \"{lab}\" has characters other than a-z, 0-9, _"},
    {"errors.preset.wrong_lab", "preset is for lab \"{lab}\", not \"{expected}\""},
    {"errors.preset.not_key_value", "preset field \"{field}\": expected key=value"},
    {"errors.preset.key_twice", "preset key \"{key}\" appears twice"},
    {"errors.preset.unknown_key", "preset for lab \"{lab}\": unknown key \"{key}\""},
    {"errors.preset.unknown_lab", "preset \"{preset}\": unknown lab \"{lab}\" (known: {labs})"},
    // One value ({name}: the field, e.g. "attention.T" or "head_dim").
    {"errors.value.not_finite", "{name} = \"{value}\": not a finite number"},
    {"errors.value.not_whole", "{name} = {value}: must be a whole number"},
    {"errors.value.not_bool", "{name} = \"{value}\": expected 0 or 1"},
    {"errors.value.not_in_choices", "{name} = \"{value}\": expected one of {choices}"},
    {"errors.value.out_of_range", "{name} = {value}: must be a number in [{lo}, {hi}]"},
    {"errors.value.out_of_range_hint",
     "{name} = {value}: must be a number in [{lo}, {hi}] ({hint})"},
    {"errors.value.not_representable", "{name} = {value}: must be a whole number in [{lo}, {hi}]"},
};

// InputError(preset_message(id, args)) is how the preset code throws.
inline Message preset_message(std::string_view id, std::vector<MessageArg> args) {
  return message_make(kPresetMessages, id, std::move(args));
}

// Every id the preset code can emit.
inline std::vector<std::string> preset_message_ids() {
  return message_ids(kPresetMessages);
}

}  // namespace poslab
