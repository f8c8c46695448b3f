// Texts core computes for a reader (a comparison's note, a refusal), kept translatable
// without core knowing any interface language: a stable id (the interface-file key, e.g.
// "attention.note.shift"), named arguments, and core's English rendering, which the CLI
// prints. The app looks the id up in the user's language and substitutes the same
// arguments (app/widgets/tr_format.hpp); an id it does not know shows the English text.
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace poslab {

struct Message;

// One named argument, written {name} in a template: a value shown as is (a number, an
// identifier) or a nested message, rendered in the reader's language too (a reason inside
// a note, an encoding's label).
struct MessageArg {
  std::string name;
  std::string value;                       // used when `message` is null
  std::shared_ptr<const Message> message;  // nested message, or null
};

struct Message {
  std::string id;                // stable id (interface key); empty for plain text
  std::vector<MessageArg> args;  // what the template's {name} placeholders refer to
  std::string text;              // core's English, arguments substituted (what the CLI prints)

  bool empty() const { return text.empty() && id.empty(); }
};

// One catalog entry: an id and its English template. Each area of core lists the ids it
// can emit in one constexpr array next to the code that emits them (attention_messages.hpp,
// kv_messages.hpp); tests check every id has an English and a Chinese interface text.
struct MessageTemplate {
  std::string_view id;
  std::string_view english;
};

MessageArg message_arg(std::string name, std::string value);
MessageArg message_arg(std::string name, Message nested);

// The message for catalog entry `id`, its English rendered from the template (nested
// messages by their own English). An id missing from the catalog is a programmer error
// (std::logic_error naming it).
Message message_make(std::span<const MessageTemplate> catalog, std::string_view id,
                     std::vector<MessageArg> args = {});
// Every id of `catalog`, in order (what a core area's *_message_ids() lists for the tests).
std::vector<std::string> message_ids(std::span<const MessageTemplate> catalog);
// A message without an id: plain English text (e.g. an error thrown as a string).
Message message_plain(std::string text);

// Replaces every {name} of `tmpl` for which `arg(name)` gives a value; other text,
// including braces that name no argument, is kept as written.
std::string message_substitute(
    std::string_view tmpl, const std::function<std::optional<std::string>(std::string_view)>& arg);

// `m` in some language: `lookup(id)` gives the template for an id, or nullopt when that
// language has none (then the message's English `text` is used); arguments are
// substituted, nested messages rendered the same way. Never throws on unknown ids.
using MessageLookup = std::function<std::optional<std::string>(const std::string& id)>;
std::string message_render(const Message& m, const MessageLookup& lookup);

}  // namespace poslab
