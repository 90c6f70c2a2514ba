// Repeat-and-summarise: warm-up runs, timed repeats, then median, min, max and
// p95 of the samples. Throughput (GB/s, GFLOP/s) is derived from the work a
// variant declares once, never re-derived by hand in a stage.
#pragma once

#include <chrono>
#include <vector>

namespace csg {

using Millis = std::chrono::duration<double, std::milli>;

struct Summary {
  double median_ms = 0.0;
  double min_ms = 0.0;
  double max_ms = 0.0;
  double p95_ms = 0.0;  // nearest-rank: the smallest sample ≥ 95% of all samples
  int samples = 0;
};

// Throws std::invalid_argument for an empty sample set.
Summary summarize(std::vector<Millis> samples);

struct RepeatPlan {
  int warmup = 2;
  int repeats = 10;
};

// Runs `prepare` (untimed) then `run` warmup + repeats times; `run` returns the
// duration it measured. Only the repeats are summarised.
template <class Prepare, class Run>
Summary measure(const RepeatPlan& plan, Prepare&& prepare, Run&& run) {
  for (int i = 0; i < plan.warmup; ++i) {
    prepare();
    static_cast<void>(run());
  }
  std::vector<Millis> samples;
  samples.reserve(static_cast<std::size_t>(plan.repeats));
  for (int i = 0; i < plan.repeats; ++i) {
    prepare();
    samples.push_back(run());
  }
  return summarize(std::move(samples));
}

// What one run of a variant moves and computes.
struct Work {
  double bytes = 0.0;  // over PCIe (H2D + D2H) or through memory, as the variant says
  double flops = 0.0;
};

// 10^9 bytes per second and 10^9 FLOP per second; 0 when time is 0.
double gbps(double bytes, double ms);
double gflops(double flops, double ms);

}  // namespace csg
