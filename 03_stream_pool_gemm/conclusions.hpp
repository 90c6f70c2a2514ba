// Every sentence stage 03 prints that interprets its figures, each chosen by
// the figures themselves with a stated threshold, including the branches
// where the article's claim does not hold at this size on this GPU. Plain
// arithmetic on medians: the CPU tests feed each branch made-up figures.
#pragma once

#include <string>
#include <vector>

#include "measure/pipeline_bound.hpp"

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
// "time stops improving at 2 streams (within 2% of the best, 16.06 ms at 4); larger pools got
// slower: 256, 512, 1024 streams more than 5% slower than the best (the slowest: 9.22 ms at 1024,
// 37% slower)", or the branches that say it kept improving or neither helped nor hurt.
std::string sweep_text(const SweepVerdict& verdict);

// What the limiting path means for what would make the run faster.
std::string regime_text(const PipelineBound& bound);

// One stream per engine against the article's pool, and why, from which is
// faster and what limits the pool.
std::string engines_text(double engines_ms, double pool_ms, BoundPath pool_limited_by);

// The pool against the three kinds of work alone on one stream: within
// kNearLongest of the longest of them the copies hid behind it (the article's
// second timeline); within kNearSerial of their sum nothing overlapped (the
// first); in between, some did.
inline constexpr double kNearLongest = 0.10;
std::string overlap_text(double pool_ms, double h2d_ms, double kernel_ms, double d2h_ms);

// A pool on pageable memory against the serial run on pageable memory: near
// serial speed (within kNearSerial of it) means the copies did not overlap.
inline constexpr double kNearSerial = 0.10;
std::string pageable_pool_text(double pool_ms, double serial_pageable_ms);

// The pool's kernels alone on its own streams against the one-stream kernel
// sum: below it by more than kEqualWithin, kernels of different streams
// filled each other's last partial wave, so the one-stream sum is no bound
// for a pool; otherwise nothing to explain (empty).
std::string partial_wave_text(double pool_kernels_ms, double one_stream_kernels_ms, int streams);

// The pool against its bound: within the tolerance of 100% or under it, the
// percentage; above 100% by more than the tolerance, a warning that the bound
// failed to bound (a bug of the bound, never of the run).
std::string bound_text(const std::string& variant, double percent_of_bound, double tolerance);
bool bound_beaten(double percent_of_bound, double tolerance);

}  // namespace csg::pool
