// Structured messages (see message.hpp): building from a catalog, placeholder
// substitution, rendering through a lookup.
#include "core/common/message.hpp"

#include <stdexcept>

namespace poslab {

MessageArg message_arg(std::string name, std::string value) {
  return MessageArg{std::move(name), std::move(value), nullptr};
}

MessageArg message_arg(std::string name, Message nested) {
  std::string text = nested.text;
  return MessageArg{std::move(name), std::move(text),
                    std::make_shared<const Message>(std::move(nested))};
}

std::string message_substitute(
    std::string_view tmpl, const std::function<std::optional<std::string>(std::string_view)>& arg) {
  std::string out;
  out.reserve(tmpl.size());
  size_t i = 0;
  while (i < tmpl.size()) {
    const size_t open = tmpl.find('{', i);
    if (open == std::string_view::npos) break;
    const size_t close = tmpl.find('}', open + 1);
    if (close == std::string_view::npos) break;
    out.append(tmpl.substr(i, open - i));
    const std::string_view name = tmpl.substr(open + 1, close - open - 1);
    if (const auto v = name.find('{') == std::string_view::npos ? arg(name) : std::nullopt) {
      out += *v;
      i = close + 1;
    } else {
      out += '{';  // not an argument: keep the brace, look for the next one after it
      i = open + 1;
    }
  }
  out.append(tmpl.substr(i));
  return out;
}

namespace {

std::string render_with(std::string_view tmpl, const Message& m, const MessageLookup* lookup) {
  return message_substitute(tmpl, [&](std::string_view name) -> std::optional<std::string> {
    for (const auto& a : m.args) {
      if (a.name != name) continue;
      if (a.message && lookup) return message_render(*a.message, *lookup);
      return a.message ? a.message->text : a.value;
    }
    return std::nullopt;
  });
}

}  // namespace

Message message_make(std::span<const MessageTemplate> catalog, std::string_view id,
                     std::vector<MessageArg> args) {
  for (const auto& t : catalog) {
    if (t.id != id) continue;
    Message m{std::string(id), std::move(args), {}};
    m.text = render_with(t.english, m, nullptr);
    return m;
  }
  throw std::logic_error("message id \"" + std::string(id) + "\" is not in its catalog");
}

std::vector<std::string> message_ids(std::span<const MessageTemplate> catalog) {
  std::vector<std::string> ids;
  for (const auto& t : catalog) ids.emplace_back(t.id);
  return ids;
}

Message message_plain(std::string text) {
  return Message{{}, {}, std::move(text)};
}

std::string message_render(const Message& m, const MessageLookup& lookup) {
  if (m.id.empty()) return m.text;
  const std::optional<std::string> tmpl = lookup(m.id);
  if (!tmpl) return m.text;
  return render_with(*tmpl, m, &lookup);
}

}  // namespace poslab
