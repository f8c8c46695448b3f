// Translated labels that are also ImGui IDs. A control's label is its ID, so a label read
// from the interface files ("Basis b" / "基数 b") would change the ID when the language
// changes; tr_id() shows the translation and keeps the key as the ID ("text###key").
#pragma once
#include <string>

#include "app/app_context.hpp"

namespace poslab::app {

// "<translation of key>###<key>": shows the text, identifies the control by the key.
inline std::string tr_id(const AppContext& ctx, const char* key) {
  return std::string(ctx.tr(key)) + "###" + key;
}

}  // namespace poslab::app
