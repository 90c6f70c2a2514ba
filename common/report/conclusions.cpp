#include "report/conclusions.hpp"

#include <cmath>

#include "report/table.hpp"

namespace csg {

Comparison compare_times(double ms, double reference_ms, double equal_within) {
  if (ms < reference_ms * (1.0 - equal_within)) return Comparison::faster;
  if (ms > reference_ms * (1.0 + equal_within)) return Comparison::slower;
  return Comparison::same;
}

std::string compare_phrase(double ms, double reference_ms, double equal_within) {
  switch (compare_times(ms, reference_ms, equal_within)) {
    case Comparison::faster: return fixed(reference_ms / ms, 2) + "x faster than";
    case Comparison::slower: return fixed(ms / reference_ms, 2) + "x slower than";
    case Comparison::same: break;
  }
  return "about as fast as (within " + percent_text(equal_within) + ")";
}

std::string percent_text(double fraction) { return fixed(std::round(100.0 * fraction), 0) + "%"; }

}  // namespace csg
