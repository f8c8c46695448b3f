// Valid ranges of parameters, declared once next to each parameter struct. Validation in
// core and slider limits in the app both read these, so they cannot drift apart.
#pragma once
#include <cmath>
#include <sstream>
#include <string>

#include "core/common/errors.hpp"

namespace poslab {

struct ParamRange {
  double lo;  // smallest valid value (inclusive)
  double hi;  // largest valid value (inclusive)
  bool contains(double v) const { return std::isfinite(v) && v >= lo && v <= hi; }
};

// Throws InputError "name = value: must be in [lo, hi]" unless the range contains v.
inline void require_in_range(const char* name, double v, ParamRange r, const char* hint = "") {
  if (r.contains(v)) return;
  std::ostringstream s;
  s << name << " = " << v << ": must be a number in [" << r.lo << ", " << r.hi << "]";
  if (hint && *hint) s << " (" << hint << ")";
  throw InputError(s.str());
}

}  // namespace poslab
