#include "measure/pipeline_bound.hpp"

#include <stdexcept>

namespace csg {

PipelineBound pipeline_bound(const StageTimes& sums, double both_ways_ms, int batches) {
  if (batches < 1) throw std::invalid_argument("pipeline_bound: batches must be at least 1");
  const double h2d_all = sums.h2d_ms;
  const double kernel_all = sums.kernel_ms;
  const double d2h_all = sums.d2h_ms;
  const double h2d_one = h2d_all / batches;
  const double kernel_one = kernel_all / batches;
  const double d2h_one = d2h_all / batches;

  PipelineBound bound;
  bound.kernel_path_ms = h2d_one + kernel_all + d2h_one;
  bound.h2d_path_ms = h2d_all + kernel_one + d2h_one;
  bound.d2h_path_ms = h2d_one + kernel_one + d2h_all;
  bound.both_ways_ms = both_ways_ms;
  bound.bound_ms = bound.kernel_path_ms;
  bound.limited_by = "kernels";
  auto consider = [&bound](double ms, const char* name) {
    if (ms > bound.bound_ms) {
      bound.bound_ms = ms;
      bound.limited_by = name;
    }
  };
  consider(bound.h2d_path_ms, "H2D copies");
  consider(bound.d2h_path_ms, "D2H copies");
  consider(bound.both_ways_ms, "PCIe both ways");
  return bound;
}

}  // namespace csg
