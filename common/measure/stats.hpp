// Repeat-and-summarise: warm-up runs, timed repeats, then median, min, max and
// p95 of the samples; throughput from the work a variant declares once.
#pragma once

#include <chrono>
#include <functional>
#include <initializer_list>
#include <optional>
#include <vector>

#include "base/units.hpp"  // Millis

namespace csg {

// The rounds a variant runs: `warmup` untimed, then `repeats` timed, one sample each.
struct RepeatPlan {
  int warmup = 2;
  int repeats = 10;
};

// What the timed samples say.
struct Summary {
  double median_ms = 0.0;
  double min_ms = 0.0;
  double max_ms = 0.0;
  double p95_ms = 0.0;  // nearest-rank: the smallest sample ≥ 95% of all samples
  int samples = 0;
  std::vector<double> samples_ms;  // every timed sample, in the order they ran
};

// Throws std::invalid_argument for an empty sample set.
Summary summarize(std::vector<Millis> samples);

// How far the typical run is from the fastest: (median - min) / median; 0 for a median of 0.
double relative_spread(double median_ms, double min_ms);
inline double relative_spread(const Summary& s) { return relative_spread(s.median_ms, s.min_ms); }

// One variant for measure_interleaved: `prepare` runs untimed before every
// run, `run` returns the time it measured, `after_last` (optional) runs right
// after the variant's last timed run, e.g. to verify its output before the
// next variant overwrites it. `side` (optional) reads a second figure of the
// same run right after it, e.g. the host's time to issue a device-timed run.
struct TimedVariant {
  std::function<void()> prepare;
  std::function<Millis()> run;
  std::function<void()> after_last;
  std::function<Millis()> side{};
};

// A variant's summary, and its side figure's where it has one.
struct Measured {
  Summary primary;
  std::optional<Summary> side;
};

// Runs the variants in rounds (A B C, A B C, ...): warm-up rounds, then timed
// rounds. Compared with timing A's repeats, then B's, a slow stretch of the
// machine (another tenant, a clock change) falls on every variant alike, so
// ratios between them stay honest. Returns one result per variant, in order.
std::vector<Measured> measure_rounds(const RepeatPlan& plan, const std::vector<TimedVariant>& variants);
// measure_rounds' primary summaries only.
std::vector<Summary> measure_interleaved(const RepeatPlan& plan, const std::vector<TimedVariant>& variants);
// measure_interleaved, each variant's summary stored through its pointer in `into`.
void measure_interleaved_into(const RepeatPlan& plan, const std::vector<TimedVariant>& variants,
                              std::initializer_list<Summary*> into);

// What one run of a variant moves and computes.
struct Work {
  double bytes = 0.0;  // over PCIe (H2D + D2H) or through memory, as the variant says
  double flops = 0.0;
};

// 10^9 bytes per second and 10^9 FLOP per second; 0 when time is 0.
double gbps(double bytes, double ms);
double gflops(double flops, double ms);

}  // namespace csg
