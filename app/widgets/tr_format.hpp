// Messages core computes (core/common/message.hpp: an id, named arguments, English text)
// shown in the user's language: the id is an interface key, its text a template whose
// {name} placeholders take the message's arguments. An id no interface file has shows
// core's English text, so a new core message never breaks the GUI.
#pragma once
#include <string>

#include "app/app_context.hpp"
#include "core/common/errors.hpp"
#include "core/common/message.hpp"

namespace poslab::app {

// `lookup(key)`: the interface text for key, or nullptr when no file has it.
std::string tr_format(const std::function<const char*(const char* key)>& lookup, const Message& m);
// Through ctx.tr(): the message in the user's language.
std::string tr_format(const AppContext& ctx, const Message& m);
// An error for the banner: its message translated when core threw one, else what().
std::string tr_error(const AppContext& ctx, const std::exception& e);

}  // namespace poslab::app
