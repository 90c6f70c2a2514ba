#include "measure/stats.hpp"

#include <algorithm>
#include <cmath>
#include <chrono>
#include <iterator>
#include <stdexcept>
#include <string>

#include "base/interrupt.hpp"
#include "base/progress.hpp"
#include "base/text.hpp"

namespace csg {

double relative_spread(double median_ms, double min_ms) {
  return median_ms > 0.0 ? (median_ms - min_ms) / median_ms : 0.0;
}

Summary summarize(std::vector<Millis> samples) {
  if (samples.empty()) throw std::invalid_argument("summarize: no samples");
  Summary s;
  for (const Millis& sample : samples) s.samples_ms.push_back(sample.count());
  std::sort(samples.begin(), samples.end());
  const std::size_t n = samples.size();
  s.samples = static_cast<int>(n);
  s.min_ms = samples.front().count();
  s.max_ms = samples.back().count();
  s.median_ms = (n % 2 == 1) ? samples[n / 2].count()
                             : 0.5 * (samples[n / 2 - 1].count() + samples[n / 2].count());
  // Nearest rank: ceil(0.95·n), 1-based.
  const std::size_t rank = static_cast<std::size_t>(std::ceil(0.95 * static_cast<double>(n)));
  s.p95_ms = samples[std::max<std::size_t>(rank, 1) - 1].count();
  return s;
}

std::vector<Measured> measure_rounds(const RepeatPlan& plan, const std::vector<TimedVariant>& variants) {
  const int rounds = plan.warmup + plan.repeats;
  RoundProgress report(rounds);
  for (int round = 0; round < plan.warmup; ++round) {
    for (const auto& variant : variants) {
      if (variant.prepare) variant.prepare();
      static_cast<void>(variant.run());
      throw_if_interrupted("warm-up round " + std::to_string(round + 1) + " of " + std::to_string(plan.warmup));
    }
    report.done(round + 1);
  }
  std::vector<std::vector<Millis>> samples(variants.size());
  std::vector<std::vector<Millis>> sides(variants.size());
  for (int round = 0; round < plan.repeats; ++round) {
    for (std::size_t v = 0; v < variants.size(); ++v) {
      if (variants[v].prepare) variants[v].prepare();
      samples[v].push_back(variants[v].run());
      if (variants[v].side) sides[v].push_back(variants[v].side());
      throw_if_interrupted("timed round " + std::to_string(round + 1) + " of " + std::to_string(plan.repeats));
      if (round + 1 == plan.repeats && variants[v].after_last) variants[v].after_last();
    }
    report.done(plan.warmup + round + 1);
  }
  std::vector<Measured> results;
  results.reserve(variants.size());
  for (std::size_t v = 0; v < variants.size(); ++v) {
    Measured m{summarize(std::move(samples[v])), std::nullopt};
    if (!sides[v].empty()) m.side = summarize(std::move(sides[v]));
    results.push_back(std::move(m));
  }
  return results;
}

std::vector<Summary> measure_interleaved(const RepeatPlan& plan, const std::vector<TimedVariant>& variants) {
  std::vector<Summary> summaries;
  for (Measured& m : measure_rounds(plan, variants)) summaries.push_back(std::move(m.primary));
  return summaries;
}

double gbps(double bytes, double ms) { return ms > 0.0 ? bytes / (ms * 1e-3) / 1e9 : 0.0; }
double gflops(double flops, double ms) { return ms > 0.0 ? flops / (ms * 1e-3) / 1e9 : 0.0; }

void measure_interleaved_into(const RepeatPlan& plan, const std::vector<TimedVariant>& variants,
                              std::initializer_list<Summary*> into) {
  if (into.size() != variants.size()) {
    throw std::invalid_argument("measure_interleaved_into: " + plural(std::ssize(variants), "variant") + ", " +
                                plural(std::ssize(into), "place") + " for their summaries");
  }
  std::vector<Summary> summaries = measure_interleaved(plan, variants);
  auto place = into.begin();
  for (Summary& summary : summaries) **place++ = std::move(summary);
}

}  // namespace csg
