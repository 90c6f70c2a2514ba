#include "conclusions.hpp"

#include "experiment/lab.hpp"

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

Verdict plateau_verdict(std::string id, const std::vector<SweepPoint>& points) {
  const SweepVerdict v = judge_sweep(points);
  nlohmann::json measured = nlohmann::json::array();
  for (const SweepPoint& p : points) measured.push_back({{"streams", p.streams}, {"ms", p.ms}});
  Verdict verdict{.id = std::move(id),
                  .figures = {{"plateau_streams", v.plateau_streams},
                              {"best_streams", v.best_streams},
                              {"best_ms", v.best_ms},
                              {"worse_streams", v.worse},
                              {"worst_streams", v.worst_streams},
                              {"worst_ms", v.worst_ms},
                              {"largest_streams", v.largest_streams},
                              {"points", measured}},
                  .threshold = {{"plateau_within", kPlateauWithin}, {"worse_by", kWorseBy}}};
  if (v.plateau_streams == v.largest_streams) {
    verdict.outcome = "still_improving";
    verdict.sentence = "time still improved up to the largest pool tried, " + plural(v.largest_streams, "stream") +
                       " (" + fixed(v.best_ms, 2) + " ms): more streams helped as far as this sweep went";
    return verdict;
  }
  verdict.sentence = "time stops improving at " + plural(v.plateau_streams, "stream") + " (within " +
                     percent_text(kPlateauWithin) + " of the best, " + fixed(v.best_ms, 2) + " ms at " +
                     std::to_string(v.best_streams) + ")";
  if (v.worse.empty()) {
    verdict.outcome = "plateau";
    verdict.sentence += "; no larger pool is more than " + percent_text(kWorseBy) +
                        " slower than the best: past that point more streams neither help nor hurt";
    return verdict;
  }
  std::string sizes;
  for (const int streams : v.worse) sizes += (sizes.empty() ? "" : ", ") + std::to_string(streams);
  verdict.outcome = "plateau_then_slower";
  verdict.sentence += "; larger pools got slower: " + sizes + " streams more than " + percent_text(kWorseBy) +
                      " slower than the best (the slowest: " + fixed(v.worst_ms, 2) + " ms at " +
                      std::to_string(v.worst_streams) + ", " + percent_text(v.worst_ms / v.best_ms - 1.0) + " slower)";
  return verdict;
}

Verdict regime_verdict(const PipelineBound& bound) {
  const Regime regime = regime_of(bound);
  Verdict verdict{.id = "pool.regime",
                  .outcome = std::string(name_of(regime, {"compute_bound", "pcie_bound", "launch_bound",
                                                          "stream_order_bound"})),
                  // The bound's paths are the result's "bounds"; the limiting one chooses.
                  .figures = {{"limited_by", to_string(bound.limited_by)}, {"bound_ms", bound.bound_ms}}};
  switch (regime) {
    case Regime::compute_bound:
      verdict.sentence = "regime: compute-bound. The kernels set the bound; the pool hides the copies behind them, so a "
                         "faster\nkernel (--kernel tiled or cublas) is what would make this run faster.";
      break;
    case Regime::launch_bound:
      verdict.sentence = "regime: launch-bound. The host's time to issue the run's operations sets the bound: the GPU "
                         "waits\nfor work. Fewer, larger operations, or one CUDA Graph launch instead of the calls "
                         "(stage 04), would help.";
      break;
    case Regime::stream_order_bound:
      verdict.sentence = "regime: stream-order-bound. Each stream runs its batches' copies and kernels one after "
                         "another, and the\nbusiest stream's batches in a row set the bound: more streams (--streams) "
                         "is what would make this run faster.";
      break;
    case Regime::pcie_bound:
      verdict.sentence = "regime: PCIe-bound (" + std::string(to_string(bound.limited_by)) +
                         " set the bound). The kernels hide behind the copies: a faster kernel changes\nnothing, and "
                         "what counts is keeping the copy engines busy from the first batch to the last.";
      break;
  }
  return verdict;
}

Verdict engines_verdict(double engines_ms, double pool_ms, BoundPath pool_limited_by) {
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
  Verdict verdict = comparison_verdict("pool.engine_streams", engines_ms, pool_ms, std::move(text));
  verdict.figures["engine_streams_ms"] = engines_ms;
  verdict.figures["pool_ms"] = pool_ms;
  verdict.figures["pool_limited_by"] = to_string(pool_limited_by);
  return verdict;
}

Verdict overlap_verdict(double pool_ms, double h2d_ms, double kernel_ms, double d2h_ms) {
  const double sum = h2d_ms + kernel_ms + d2h_ms;
  std::string longest_name = "kernels";
  double longest = kernel_ms;
  if (h2d_ms > longest) longest = h2d_ms, longest_name = "H2D copies";
  if (d2h_ms > longest) longest = d2h_ms, longest_name = "D2H copies";
  Verdict verdict{.id = "pool.overlap",
                  .figures = {{"pool_ms", pool_ms},
                              {"h2d_ms", h2d_ms},
                              {"kernel_ms", kernel_ms},
                              {"d2h_ms", d2h_ms},
                              {"longest_ms", longest},
                              {"sum_ms", sum}},
                  .threshold = {{"near_longest", kNearLongest}, {"near_serial", kNearSerial}}};
  const std::string took = "the pool took " + fixed(pool_ms, 2) + " ms; ";
  const std::string longest_text = "the longest kind of work alone (" + longest_name + ") " + fixed(longest, 2) + " ms";
  const std::string sum_text = "the sum of the three " + fixed(sum, 2) + " ms";
  if (pool_ms <= longest * (1.0 + kNearLongest)) {
    verdict.outcome = "hid_behind_longest";
    verdict.sentence = took + longest_text + ", " + sum_text + ":\n  within " + percent_text(kNearLongest) +
                       " of the longest, so the rest ran beside the " + longest_name + " (the article's second timeline).";
  } else if (pool_ms >= sum * (1.0 - kNearSerial)) {
    verdict.outcome = "nothing_overlapped";
    verdict.sentence = took + sum_text + ", " + longest_text + ":\n  within " + percent_text(kNearSerial) +
                       " of the sum, so nothing overlapped: the batches ran one after another (the article's first "
                       "timeline).";
  } else {
    verdict.outcome = "partly_overlapped";
    verdict.sentence =
        took + longest_text + ", " + sum_text + ":\n  between the two, so the copies overlapped the kernels only in part.";
  }
  return verdict;
}

Verdict pageable_pool_verdict(double pool_ms, double serial_pageable_ms) {
  const bool serial = pool_ms >= serial_pageable_ms * (1.0 - kNearSerial);
  const std::string head = "pageable host memory: the pool took " + fixed(pool_ms, 2) + " ms, ";
  return {.id = "pool.pageable",
          .outcome = serial ? "nothing_overlapped" : "some_overlapped",
          .figures = {{"pool_ms", pool_ms}, {"serial_pageable_ms", serial_pageable_ms}},
          .threshold = kNearSerial,
          .sentence = serial ? head + "within " + percent_text(kNearSerial) + " of the serial run on pageable memory (" +
                                   fixed(serial_pageable_ms, 2) +
                                   " ms): every cudaMemcpyAsync held the host while the\n  driver staged the copy, so "
                                   "nothing overlapped (compare with --host-memory pinned)."
                             : head + compare_phrase(pool_ms, serial_pageable_ms) +
                                   " the serial run on pageable memory (" + fixed(serial_pageable_ms, 2) +
                                   " ms): some work still\n  overlapped on this system, though each cudaMemcpyAsync "
                                   "held the host while the driver staged it."};
}

std::optional<Verdict> partial_wave_verdict(double pool_kernels_ms, double one_stream_kernels_ms, int streams) {
  if (streams < 2 || compare_times(pool_kernels_ms, one_stream_kernels_ms) != Comparison::faster) return std::nullopt;
  return Verdict{
      .id = "pool.partial_wave",
      .outcome = "filled",
      .figures = {{"pool_kernels_ms", pool_kernels_ms},
                  {"one_stream_kernels_ms", one_stream_kernels_ms},
                  {"streams", streams}},
      .threshold = kEqualWithin,
      .sentence = "the kernels alone on the pool's " + plural(streams, "stream") + " took " + fixed(pool_kernels_ms, 2) +
                  " ms, " + compare_phrase(pool_kernels_ms, one_stream_kernels_ms) + " on one stream (" +
                  fixed(one_stream_kernels_ms, 2) +
                  " ms):\n  on one stream each kernel's last, partial wave of blocks leaves SMs idle; kernels of other "
                  "streams fill them.\n  So the one-stream kernel sum is no bound for a pool: the bound uses the "
                  "kernels on the pool's own streams."};
}

bool bound_beaten(double percent_of_bound, double tolerance) { return percent_of_bound > 100.0 * (1.0 + tolerance); }

Verdict bound_verdict(std::string id, const std::string& variant, double achieved_ms, const PipelineBound& bound,
                      double tolerance) {
  const double percent = percent_of_bound(bound, achieved_ms);
  Verdict verdict{.id = std::move(id),
                  .figures = {{"variant", variant},
                              {"achieved_ms", achieved_ms},
                              {"bound_ms", bound.bound_ms},
                              {"percent_of_bound", percent},
                              {"limited_by", to_string(bound.limited_by)}},
                  .threshold = {{"tolerance", tolerance}, {"loose_bound", kLooseBound}}};
  if (bound_beaten(percent, tolerance)) {
    verdict.outcome = "beaten";
    verdict.sentence = "WARNING: " + variant + " ran at " + fixed(percent, 1) + "% of its bound, more than the " +
                       percent_text(tolerance) +
                       " noise above 100%: a bound must not be beaten, so the bound is wrong here.";
  } else if (std::string gap = bound_gap_text(variant, achieved_ms, bound); !gap.empty()) {
    verdict.outcome = "loose";
    verdict.sentence = std::move(gap);
  } else {
    verdict.outcome = "at_bound";
    verdict.sentence = variant + " reached " + fixed(percent, 1) +
                       "% of its bound (100% is the fastest any schedule of this work could be; the noise allowed is " +
                       percent_text(tolerance) + ")";
  }
  return verdict;
}

}  // namespace csg::pool
