// How long a run will take, estimated before anything large is allocated:
// the run's own GEMM and copies timed once at a small size on this GPU give
// rates; the work's FLOPs and bytes over those rates, times the variants and
// rounds, give the estimate. A run estimated over --max-minutes is refused
// (exit 2, with the estimate) instead of running for hours; one over a few
// seconds says so, and measure_rounds then prints its progress.
#pragma once

#include <string>

#include "workload/gemm.hpp"
#include "batches.hpp"

namespace csg {

struct Rates {
  double kernel_flops_per_s = 0.0;  // the run's GEMM
  double pinned_bytes_per_s = 0.0;  // one copy, either way
  double pageable_bytes_per_s = 0.0;
};

// Times the run's GEMM on one batch of at most 1024 x 1024 x 512 (its own
// shape where smaller; a second run after a first, untimed one), and a
// 32 MiB copy each way from pinned and from pageable memory. A few tens of ms.
Rates measure_rates(const Gemm& gemm, GemmShape shape);
// The copy rates alone (kernel_flops_per_s stays 0), for a stage without GEMMs.
Rates measure_copy_rates();

// The whole workload's kernels and copies, in seconds, at those rates (the
// copies at the pageable rate when `pageable`).
struct WorkSeconds {
  double kernels = 0.0;
  double h2d = 0.0;
  double d2h = 0.0;
  double serial() const { return kernels + h2d + d2h; }
  double overlapped() const;  // the longest of the three: a pipeline at best
};
WorkSeconds work_seconds(const Workload& work, const Rates& rates, bool pageable);

// Estimates above this many seconds are printed.
inline constexpr double kSayEstimateAbove = 5.0;

// Prints the estimate when above kSayEstimateAbove; throws UsageError when
// above `max_minutes`. `what` names the work ("100 naive GEMMs of 65536x65536x65536").
void check_estimate(double seconds, int max_minutes, const std::string& what);

}  // namespace csg
