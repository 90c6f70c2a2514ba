// The pipeline bound: the shortest time any schedule of the batches could
// take, from measured isolated costs. Arithmetic on plain numbers.
//
// Each resource must do all its work, and it can't start before the first
// batch reaches it or stop before the last batch has left it:
//   kernels:   first H2D + all kernels + last D2H
//   H2D copy:  all H2D + last kernel + last D2H
//   D2H copy:  first H2D + first kernel + all D2H
//   PCIe both ways: all H2D and all D2H issued at once on two streams (the
//              link and host memory shared by both directions)
// One batch's share is the sum ÷ batches. The bound is the largest of the
// four; the resource that sets it is what the run is limited by.
// Napkin math at the article's sizes on an H200: kernels 17.9 ms + 0.04 +
// 0.08 ≈ 18.0 ms, far above H2D 4.1 and D2H 7.8: compute-bound.
#pragma once

#include <string>

namespace csg {

// Medians of every batch's work of one kind, run alone (stage_sums.hpp), in ms.
struct StageTimes {
  double h2d_ms = 0.0;
  double kernel_ms = 0.0;
  double d2h_ms = 0.0;
};

struct PipelineBound {
  double kernel_path_ms = 0.0;
  double h2d_path_ms = 0.0;
  double d2h_path_ms = 0.0;
  double both_ways_ms = 0.0;
  double bound_ms = 0.0;
  std::string limited_by;  // "kernels", "H2D copies", "D2H copies" or "PCIe both ways"
};

// `both_ways_ms`: the median time of all H2D and all D2H at once (copies_both_ways_variant).
// Throws std::invalid_argument for fewer than one batch.
PipelineBound pipeline_bound(const StageTimes& sums, double both_ways_ms, int batches);

}  // namespace csg
