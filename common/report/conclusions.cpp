#include "report/conclusions.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "base/enum_names.hpp"
#include "report/table.hpp"

namespace csg {

Comparison compare_times(double ms, double reference_ms, double equal_within) {
  if (ms < reference_ms * (1.0 - equal_within)) return Comparison::faster;
  if (ms > reference_ms * (1.0 + equal_within)) return Comparison::slower;
  return Comparison::same;
}

std::string by_comparison(Comparison comparison, const std::string& faster, const std::string& same,
                          const std::string& slower) {
  return comparison == Comparison::faster ? faster : comparison == Comparison::same ? same : slower;
}

std::string compare_phrase(double ms, double reference_ms, double equal_within) {
  switch (compare_times(ms, reference_ms, equal_within)) {
    case Comparison::faster: return fixed(reference_ms / ms, 2) + "x faster than";
    case Comparison::slower: return fixed(ms / reference_ms, 2) + "x slower than";
    case Comparison::same: break;
  }
  return "about as fast as (within " + percent_text(equal_within) + ")";
}

const char* to_string(Comparison comparison) { return name_of(comparison, {"faster", "same", "slower"}).data(); }

Verdict comparison_verdict(std::string id, double ms, double reference_ms, std::string sentence,
                           double equal_within) {
  return {.id = std::move(id),
          .outcome = to_string(compare_times(ms, reference_ms, equal_within)),
          .figures = {{"ms", ms}, {"reference_ms", reference_ms}, {"ratio", reference_ms > 0.0 ? ms / reference_ms : 0.0}},
          .threshold = equal_within,
          .sentence = std::move(sentence)};
}

std::string bound_gap_text(const std::string& variant, double achieved_ms, const PipelineBound& bound) {
  if (!(achieved_ms > 0.0) || bound.bound_ms >= kLooseBound * achieved_ms) return "";
  // The longest path that is one resource alone (the bound's own path when that is one).
  BoundPath resource = BoundPath::kernels;
  double resource_ms = bound.kernel_path_ms;
  for (const BoundPath path : {BoundPath::h2d, BoundPath::d2h, BoundPath::both_ways, BoundPath::host_issue}) {
    if (path_ms(bound, path) > resource_ms) resource = path, resource_ms = path_ms(bound, path);
  }
  const double stream_ms = std::max(bound.stream_order_ms, bound.busiest_stream_ms);
  std::string text = variant + " reached " + fixed(percent_of_bound(bound, achieved_ms), 1) + "% of its bound: it took " +
                     fixed(achieved_ms, 2) + " ms, where no resource alone took more than " + fixed(resource_ms, 2) +
                     " ms (" + std::string(to_string(resource)) + ")";
  if (stream_ms > 0.0) text += " and its busiest stream alone took " + fixed(stream_ms, 2) + " ms";
  return text + ";\n  the other " + fixed(achieved_ms - bound.bound_ms, 2) +
         " ms its streams spent waiting on each other (a copy engine or the SMs busy with another\n"
         "  stream's work), which no single path of the bound measures";
}

std::string percent_text(double fraction) { return fixed(std::round(100.0 * fraction), 0) + "%"; }

}  // namespace csg
