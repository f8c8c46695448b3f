// Every lab's preset codec behind one call, so lessons and tests can check any preset
// string without knowing which lab it belongs to. Each lab adds one line in labs.cpp.
#pragma once
#include <string>
#include <vector>

namespace poslab {

// Lab names that presets may start with ("rope", "attention", "kv", "arena", ...).
std::vector<std::string> lab_names();

// Parses the preset with its lab's codec and returns it re-serialised (canonical form).
// Throws InputError naming the lab, key and value when anything is wrong or the lab is unknown.
std::string lab_preset_canonical(const std::string& preset);

}  // namespace poslab
