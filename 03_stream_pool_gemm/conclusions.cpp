#include "conclusions.hpp"

#include <algorithm>
#include <stdexcept>

#include "base/text.hpp"
#include "report/conclusions.hpp"
#include "report/table.hpp"

namespace csg::pool {

SweepVerdict judge_sweep(std::vector<SweepPoint> points) {
  if (points.empty()) throw std::invalid_argument("judge_sweep: no pool sizes");
  std::sort(points.begin(), points.end(), [](const SweepPoint& a, const SweepPoint& b) { return a.streams < b.streams; });
  SweepVerdict v;
  const auto best = std::min_element(points.begin(), points.end(),
                                     [](const SweepPoint& a, const SweepPoint& b) { return a.ms < b.ms; });
  v.best_streams = best->streams;
  v.best_ms = best->ms;
  for (const SweepPoint& p : points) {
    if (p.ms <= v.best_ms * (1.0 + kPlateauWithin)) {
      v.plateau_streams = p.streams;
      break;
    }
  }
  for (const SweepPoint& p : points) {
    if (p.streams > v.plateau_streams && p.ms > v.best_ms * (1.0 + kWorseBy)) {
      v.worse.push_back(p.streams);
      if (p.ms > v.worst_ms) {
        v.worst_ms = p.ms;
        v.worst_streams = p.streams;
      }
    }
  }
  v.largest_streams = points.back().streams;
  return v;
}

std::string sweep_text(const SweepVerdict& v) {
  std::string text;
  if (v.plateau_streams == v.largest_streams) {
    return "time still improved up to the largest pool tried, " + plural(v.largest_streams, "stream") + " (" +
           fixed(v.best_ms, 2) + " ms): more streams helped as far as this sweep went";
  }
  text = "time stops improving at " + plural(v.plateau_streams, "stream") + " (within " +
         percent_text(kPlateauWithin) + " of the best, " + fixed(v.best_ms, 2) + " ms at " +
         std::to_string(v.best_streams) + ")";
  if (v.worse.empty()) {
    text += "; no larger pool is more than " + percent_text(kWorseBy) +
            " slower than the best: past that point more streams neither help nor hurt";
  } else {
    std::string sizes;
    for (const int streams : v.worse) sizes += (sizes.empty() ? "" : ", ") + std::to_string(streams);
    text += "; larger pools got slower: " + sizes + " streams more than " + percent_text(kWorseBy) +
            " slower than the best (the slowest: " + fixed(v.worst_ms, 2) + " ms at " +
            std::to_string(v.worst_streams) + ", " + percent_text(v.worst_ms / v.best_ms - 1.0) + " slower)";
  }
  return text;
}

std::string regime_text(const PipelineBound& bound) {
  if (bound.limited_by == BoundPath::kernels) {
    return "regime: compute-bound. The kernels set the bound; the pool hides the copies behind them, so a faster\n"
           "kernel (--kernel tiled or cublas) is what would make this run faster.";
  }
  if (bound.limited_by == BoundPath::host_issue) {
    return "regime: launch-bound. The host's time to issue the run's operations sets the bound: the GPU waits\n"
           "for work. Fewer, larger operations, or one CUDA Graph launch instead of the calls (stage 04), would help.";
  }
  if (bound.limited_by == BoundPath::stream_order || bound.limited_by == BoundPath::busiest_stream) {
    return "regime: stream-order-bound. Each stream runs its batches' copies and kernels one after another, and the\n"
           "busiest stream's batches in a row set the bound: more streams (--streams) is what would make this run faster.";
  }
  return "regime: PCIe-bound (" + std::string(to_string(bound.limited_by)) +
         " set the bound). The kernels hide behind the copies: a faster kernel changes\n"
         "nothing, and what counts is keeping the copy engines busy from the first batch to the last.";
}

std::string engines_text(double engines_ms, double pool_ms, BoundPath pool_limited_by) {
  std::string text = "one stream per engine (H2D, kernels, D2H) took " + fixed(engines_ms, 2) + " ms, " +
                     compare_phrase(engines_ms, pool_ms) + " the pool (" + fixed(pool_ms, 2) + " ms)";
  const Comparison c = compare_times(engines_ms, pool_ms);
  if (c == Comparison::slower && pool_limited_by == BoundPath::kernels) {
    text += ":\n  its one compute stream runs the kernels one at a time, while the pool lets kernels of different\n"
            "  streams fill each other's last partial wave of blocks.";
  } else if (c == Comparison::faster && pool_limited_by != BoundPath::kernels) {
    text += ":\n  on one stream per direction the copies run back to back; in the pool the copy engine pauses\n"
            "  a few us each time the next copy comes from another stream.";
  } else {
    text += ".";
  }
  return text;
}

std::string overlap_text(double pool_ms, double h2d_ms, double kernel_ms, double d2h_ms) {
  const double sum = h2d_ms + kernel_ms + d2h_ms;
  std::string longest_name = "kernels";
  double longest = kernel_ms;
  if (h2d_ms > longest) longest = h2d_ms, longest_name = "H2D copies";
  if (d2h_ms > longest) longest = d2h_ms, longest_name = "D2H copies";
  const std::string took = "the pool took " + fixed(pool_ms, 2) + " ms; ";
  const std::string longest_text = "the longest kind of work alone (" + longest_name + ") " + fixed(longest, 2) + " ms";
  const std::string sum_text = "the sum of the three " + fixed(sum, 2) + " ms";
  if (pool_ms <= longest * (1.0 + kNearLongest)) {
    return took + longest_text + ", " + sum_text + ":\n  within " + percent_text(kNearLongest) +
           " of the longest, so the rest ran beside the " + longest_name + " (the article's second timeline).";
  }
  if (pool_ms >= sum * (1.0 - kNearSerial)) {
    return took + sum_text + ", " + longest_text + ":\n  within " + percent_text(kNearSerial) +
           " of the sum, so nothing overlapped: the batches ran one after another (the article's first timeline).";
  }
  return took + longest_text + ", " + sum_text + ":\n  between the two, so the copies overlapped the kernels only in part.";
}

std::string pageable_pool_text(double pool_ms, double serial_pageable_ms) {
  if (pool_ms >= serial_pageable_ms * (1.0 - kNearSerial)) {
    return "pageable host memory: the pool took " + fixed(pool_ms, 2) + " ms, within " + percent_text(kNearSerial) +
           " of the serial run on pageable memory (" + fixed(serial_pageable_ms, 2) +
           " ms): every cudaMemcpyAsync held the host while the\n  driver staged the copy, so nothing overlapped "
           "(compare with --host-memory pinned).";
  }
  return "pageable host memory: the pool took " + fixed(pool_ms, 2) + " ms, " +
         compare_phrase(pool_ms, serial_pageable_ms) + " the serial run on pageable memory (" +
         fixed(serial_pageable_ms, 2) + " ms): some work still\n  overlapped on this system, though each "
         "cudaMemcpyAsync held the host while the driver staged it.";
}

std::string partial_wave_text(double pool_kernels_ms, double one_stream_kernels_ms, int streams) {
  if (streams < 2 || compare_times(pool_kernels_ms, one_stream_kernels_ms) != Comparison::faster) return "";
  return "the kernels alone on the pool's " + plural(streams, "stream") + " took " + fixed(pool_kernels_ms, 2) +
         " ms, " + compare_phrase(pool_kernels_ms, one_stream_kernels_ms) + " on one stream (" +
         fixed(one_stream_kernels_ms, 2) + " ms):\n  on one stream each kernel's last, partial wave of blocks leaves "
         "SMs idle; kernels of other streams fill them.\n  So the one-stream kernel sum is no bound for a pool: "
         "the bound uses the kernels on the pool's own streams.";
}

bool bound_beaten(double percent_of_bound, double tolerance) { return percent_of_bound > 100.0 * (1.0 + tolerance); }

std::string bound_text(const std::string& variant, double percent_of_bound, double tolerance) {
  if (bound_beaten(percent_of_bound, tolerance)) {
    return "WARNING: " + variant + " ran at " + fixed(percent_of_bound, 1) + "% of its bound, more than the " +
           percent_text(tolerance) + " noise above 100%: a bound must not be beaten, so the bound is wrong here.";
  }
  return variant + " reached " + fixed(percent_of_bound, 1) + "% of its bound (100% is the fastest any schedule of "
         "this work could be; the noise allowed is " + percent_text(tolerance) + ")";
}

}  // namespace csg::pool
