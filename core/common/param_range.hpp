// Valid ranges of parameters, declared once next to each parameter struct. Validation in
// core and slider limits in the app both read these, so they cannot drift apart.
#pragma once
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "core/common/errors.hpp"
#include "core/common/preset_messages.hpp"

namespace poslab {

struct ParamRange {
  double lo;  // smallest valid value (inclusive)
  double hi;  // largest valid value (inclusive)
  bool contains(double v) const { return std::isfinite(v) && v >= lo && v <= hi; }
};

// Throws InputError "name = value: must be in [lo, hi]" unless the range contains v.
inline void require_in_range(const char* name, double v, ParamRange r, const char* hint = "") {
  if (r.contains(v)) return;
  // Numbers as an ostream prints them (6 significant digits), as this message always did.
  const auto num = [](double x) {
    std::ostringstream s;
    s << x;
    return s.str();
  };
  std::vector<MessageArg> args{message_arg("name", name), message_arg("value", num(v)),
                               message_arg("lo", num(r.lo)), message_arg("hi", num(r.hi))};
  const bool with_hint = hint && *hint;
  if (with_hint) args.push_back(message_arg("hint", hint));
  throw InputError(preset_message(
      with_hint ? "errors.value.out_of_range_hint" : "errors.value.out_of_range", std::move(args)));
}

}  // namespace poslab
