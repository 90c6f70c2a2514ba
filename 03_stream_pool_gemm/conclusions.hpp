// Every verdict stage 03 draws from its pool figures (report/verdict.hpp),
// each chosen by the figures themselves with a stated threshold, including
// the branches where the article's claim does not hold at this size on this
// GPU. Plain arithmetic on medians: the CPU tests feed each branch made-up figures.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "measure/pipeline_bound.hpp"
#include "report/verdict.hpp"

namespace csg::pool {

// The sweep over pool sizes ("more streams is not better"): the fewest
// streams whose time is within kPlateauWithin of the best, and the sizes past
// that which are more than kWorseBy slower than the best.
inline constexpr double kPlateauWithin = 0.02;
inline constexpr double kWorseBy = 0.05;

struct SweepPoint {
  int streams = 0;
  double ms = 0.0;
};

struct SweepVerdict {
  int plateau_streams = 0;  // the fewest streams within kPlateauWithin of the best
  int best_streams = 0;
  double best_ms = 0.0;
  std::vector<int> worse;  // sizes above the plateau more than kWorseBy slower than the best
  int worst_streams = 0;   // the slowest of those (0: none)
  double worst_ms = 0.0;
  int largest_streams = 0;
};

// Throws std::invalid_argument for no points. Points may come in any order.
SweepVerdict judge_sweep(std::vector<SweepPoint> points);
// Where time stops improving (`id`: "pool.plateau", "count_sweep.plateau"):
// "still_improving" (the plateau is the largest pool tried), "plateau" (no
// larger pool more than kWorseBy slower), "plateau_then_slower" ("time stops
// improving at 2 streams (within 2% of the best, 16.06 ms at 4); larger pools
// got slower: 256, 512, 1024 streams more than 5% slower than the best (the
// slowest: 9.22 ms at 1024, 37% slower)"). Throws as judge_sweep.
Verdict plateau_verdict(std::string id, const std::vector<SweepPoint>& points);

// What the limiting path means for what would make the run faster
// ("pool.regime"): its outcome the regime (compute_bound, pcie_bound,
// launch_bound, stream_order_bound), chosen by the bound's longest path.
Verdict regime_verdict(const PipelineBound& bound);

// One stream per engine against the article's pool ("pool.engine_streams"):
// faster, the same (within kEqualWithin) or slower, and why, from what
// limits the pool.
Verdict engines_verdict(double engines_ms, double pool_ms, BoundPath pool_limited_by);

// The pool against the three kinds of work alone on one stream
// ("pool.overlap"): within kNearLongest of the longest of them the copies hid
// behind it, the article's second timeline ("hid_behind_longest"); within
// kNearSerial of their sum nothing overlapped, the first ("nothing_overlapped");
// in between, some did ("partly_overlapped").
inline constexpr double kNearLongest = 0.10;
inline constexpr double kNearSerial = 0.10;
Verdict overlap_verdict(double pool_ms, double h2d_ms, double kernel_ms, double d2h_ms);

// A pool on pageable memory against the serial run on pageable memory
// ("pool.pageable"): near serial speed (within kNearSerial of it) the copies
// did not overlap ("nothing_overlapped"), else "some_overlapped".
Verdict pageable_pool_verdict(double pool_ms, double serial_pageable_ms);

// The pool's kernels alone on its own streams against the one-stream kernel
// sum ("pool.partial_wave"): below it by more than kEqualWithin, kernels of
// different streams filled each other's last partial wave, so the one-stream
// sum is no bound for a pool ("filled"); otherwise nothing to explain.
std::optional<Verdict> partial_wave_verdict(double pool_kernels_ms, double one_stream_kernels_ms, int streams);

// A variant against its own bound (`id`: "pool.bound" for the main pool):
// above 100% by more than `tolerance` the bound failed to bound, a bug of
// the bound, never of the run ("beaten": a warning); under kLooseBound of it
// the time its streams spent waiting on each other ("loose",
// report/conclusions.hpp's bound_gap_text); else "at_bound", the percentage.
Verdict bound_verdict(std::string id, const std::string& variant, double achieved_ms, const PipelineBound& bound,
                      double tolerance);
bool bound_beaten(double percent_of_bound, double tolerance);

}  // namespace csg::pool
