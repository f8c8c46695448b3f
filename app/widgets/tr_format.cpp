// Renders core's messages through the interface files (see tr_format.hpp).
#include "app/widgets/tr_format.hpp"

#include <cstring>

namespace poslab::app {

std::string tr_format(const std::function<const char*(const char* key)>& lookup, const Message& m) {
  return message_render(m, [&lookup](const std::string& id) -> std::optional<std::string> {
    const char* t = lookup(id.c_str());
    // ctx.tr() echoes a key no file has: that is "unknown", not a template.
    if (t == nullptr || std::strcmp(t, id.c_str()) == 0) return std::nullopt;
    return std::string(t);
  });
}

std::string tr_format(const AppContext& ctx, const Message& m) {
  return tr_format([&ctx](const char* key) { return ctx.tr(key); }, m);
}

std::string tr_error(const AppContext& ctx, const std::exception& e) {
  if (const auto* in = dynamic_cast<const InputError*>(&e)) return tr_format(ctx, in->message());
  return e.what();
}

}  // namespace poslab::app
