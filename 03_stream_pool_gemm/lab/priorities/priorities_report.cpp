#include "03_stream_pool_gemm/lab/priorities/priorities_report.hpp"

#include <cstdint>
#include <iostream>

#include "base/enum_names.hpp"
#include "base/text.hpp"
#include "base/units.hpp"
#include "03_stream_pool_gemm/lesson.hpp"
#include "report/conclusions.hpp"
#include "report/result.hpp"
#include "report/table.hpp"
#include "timeline/stage_timeline.hpp"

namespace csg::pool {
namespace {

std::string us(double ms) { return fixed(ms * 1e3, 1); }

nlohmann::json summary_json(const Summary& s) {
  return {{"median_ms", s.median_ms}, {"min_ms", s.min_ms}, {"max_ms", s.max_ms}, {"p95_ms", s.p95_ms},
          {"samples", s.samples}};
}

nlohmann::json failure_json(bool verified, const std::string& failure) {
  return verified ? nlohmann::json(nullptr) : nlohmann::json(failure.empty() ? "verification failed" : failure);
}

std::string verification_line(bool verified, const std::string& failure, const std::string& what) {
  if (verified) return "verified: " + what + ", in every run";
  return "VERIFICATION FAILED: " + (failure.empty() ? std::string("a check failed") : failure);
}

// The flood's throughput with the high-priority short kernels beside it
// against without: what priority cost the long kernels.
std::string flood_cost_text(const PriorityResult& r) {
  const double same = r.same_priority.flood_blocks_per_ms;
  const double high = r.high_priority.flood_blocks_per_ms;
  std::string text = "the flood ran " + fixed(high, 0) + " blocks/ms beside the high-priority stream and " +
                     fixed(same, 0) + " beside the default one\n  (" + percent_text(r.high_priority.flood_busy) +
                     " and " + percent_text(r.same_priority.flood_busy) + " of the GPU's block slots busy): ";
  if (same <= 0.0 || high <= 0.0) return text + "no figure to compare.";
  // Time per block, so that the common "faster/slower" threshold applies.
  switch (compare_times(1.0 / high, 1.0 / same)) {
    case Comparison::same:
      return text + "priority cost the long kernels nothing measurable (within " + percent_text(kEqualWithin) + ").";
    case Comparison::slower:
      return text + "priority cost the long kernels " + percent_text(1.0 - high / same) + " of their throughput.";
    case Comparison::faster: break;
  }
  return text + "the flood even ran " + percent_text(high / same - 1.0) + " faster beside the high-priority stream.";
}

}  // namespace

std::string_view to_string(PriorityVerdict verdict) {
  return name_of(verdict, {"not_verified", "flood_gaps", "one_level", "gpu_not_full", "helps", "no_difference", "worse"});
}

double priority_speedup(const PriorityResult& r) {
  if (r.high_priority.latency.median_ms <= 0.0) return 0.0;
  return r.same_priority.latency.median_ms / r.high_priority.latency.median_ms;
}

PriorityVerdict judge_priorities(const PriorityResult& r) {
  if (!r.verified) return PriorityVerdict::not_verified;
  if (r.flood_gaps > 0) return PriorityVerdict::flood_gaps;
  if (r.least_priority == r.greatest_priority) return PriorityVerdict::one_level;
  if (r.same_priority.flood_busy < kFloodFull) return PriorityVerdict::gpu_not_full;
  const double speedup = priority_speedup(r);
  if (speedup >= 1.0 + kPriorityWithin) return PriorityVerdict::helps;
  if (speedup * (1.0 + kPriorityWithin) <= 1.0) return PriorityVerdict::worse;
  return PriorityVerdict::no_difference;
}

std::string priority_conclusion(const PriorityResult& r) {
  const Summary& same = r.same_priority.latency;
  const Summary& high = r.high_priority.latency;
  const std::string figures = "median " + us(same.median_ms) + " us at the default priority, " +
                              us(high.median_ms) + " us at the greatest (p95 " + us(same.p95_ms) + " / " +
                              us(high.p95_ms) + " us; idle GPU " + us(r.idle.latency.median_ms) + " us)";
  switch (judge_priorities(r)) {
    case PriorityVerdict::not_verified:
      return "no conclusion about priorities: a check failed (" +
             (r.failure.empty() ? std::string("verification failed") : r.failure) + ").";
    case PriorityVerdict::flood_gaps:
      return "no conclusion about priorities: a flood stream ran dry " + plural(r.flood_gaps, "time") +
             " before the short kernels were done,\n  so some of them found free slots: the GPU was not full "
             "throughout (a busy host can cause this: run again\n  on a quiet machine).";
    case PriorityVerdict::one_level:
      return "this GPU offers a single stream priority ([" + std::to_string(r.least_priority) + ", " +
             std::to_string(r.greatest_priority) +
             "]): both runs used it, so there is nothing to compare;\n  the article's claim can't be shown here.";
    case PriorityVerdict::gpu_not_full:
      return "no conclusion about priorities: the flood kept only " + fixed(100.0 * r.same_priority.flood_busy, 1) +
             "% of the GPU's block slots busy (below " + percent_text(kFloodFull) +
             "),\n  so short kernels could find free slots at any priority.";
    case PriorityVerdict::helps:
      return "priority cut the short kernels' median latency " + fixed(priority_speedup(r), 1) +
             "x: the article's claim holds here.\n  " + figures +
             "\n  with every SM full no block is preempted, but a kernel at the greatest priority took the first "
             "slot a\n  flood block freed, while at the default priority it queued behind the flood's pending "
             "blocks.\n  " + flood_cost_text(r);
    case PriorityVerdict::no_difference:
      return "priority made no difference to the short kernels' latency within " + percent_text(kPriorityWithin) +
             ": the article's claim does not hold\n  on this GPU at this size (the block scheduler did not favour the "
             "high-priority stream).\n  " + figures + "\n  " + flood_cost_text(r);
    case PriorityVerdict::worse:
      return "priority made the short kernels' latency worse, " + fixed(1.0 / priority_speedup(r), 2) +
             "x: the article's claim does not hold on this GPU\n  at this size.\n  " + figures + "\n  " +
             flood_cost_text(r);
  }
  return "";
}

std::string_view to_string(ContentionVerdict verdict) {
  return name_of(verdict, {"not_verified", "not_exclusive", "no_concurrency", "holds", "partly", "not_seen"});
}

Overlap classify_concurrency(double c) {
  if (c >= kSideBySide) return Overlap::side_by_side;
  if (c <= kSerialised) return Overlap::serialised;
  return Overlap::partly;
}

ContentionVerdict judge_contention(const ContentionResult& r) {
  if (!r.verified) return ContentionVerdict::not_verified;
  if (r.large.blocks_per_sm >= 2) return ContentionVerdict::not_exclusive;
  if (classify_concurrency(concurrency(r.small)) != Overlap::side_by_side) return ContentionVerdict::no_concurrency;
  switch (classify_concurrency(concurrency(r.large))) {
    case Overlap::serialised: return ContentionVerdict::holds;
    case Overlap::partly: return ContentionVerdict::partly;
    case Overlap::side_by_side: break;
  }
  return ContentionVerdict::not_seen;
}

std::string contention_conclusion(const ContentionResult& r) {
  const double small = concurrency(r.small);
  const double large = concurrency(r.large);
  const std::string large_memory = format_bytes(std::uint64_t(r.large.shared_bytes)) + " of shared memory per block";
  const std::string small_text = "with no shared memory the two streams' kernels ran side by side (concurrency " +
                                 fixed(small, 2) + ", " + fixed(kSideBySide, 1) + " or more)";
  switch (judge_contention(r)) {
    case ContentionVerdict::not_verified:
      return "no conclusion about contention: a check failed (" +
             (r.failure.empty() ? std::string("verification failed") : r.failure) + ").";
    case ContentionVerdict::not_exclusive:
      return "the large kernel still fits " + plural(r.large.blocks_per_sm, "block") + " per SM (" +
             large_memory + ", " + format_bytes(std::uint64_t(r.shared_per_sm_bytes)) +
             " per SM),\n  so nothing kept the two streams apart (concurrency " + fixed(small, 2) + " small, " +
             fixed(large, 2) + " large): no resource limit to show\n  on this GPU.";
    case ContentionVerdict::no_concurrency:
      return "even with no shared memory the two streams' kernels did not run side by side (concurrency " +
             fixed(small, 2) + ", below " + fixed(kSideBySide, 1) +
             "):\n  something other than resources serialised them (streams sharing one hardware queue, "
             "CUDA_DEVICE_MAX_CONNECTIONS=1,\n  or a GPU running one kernel at a time), so the resource effect can't "
             "be read from this run.";
    case ContentionVerdict::holds:
      return small_text + ";\n  with " + large_memory + " only one block fits per SM (" +
             format_bytes(std::uint64_t(r.shared_per_sm_bytes)) + " per SM), and the second\n  stream's kernel "
             "waited for the first (concurrency " + fixed(large, 2) + ", " + fixed(kSerialised, 1) +
             " or less): kernels of several streams that\n  together need more shared memory than the SMs have are "
             "queued. The article's claim holds here.";
    case ContentionVerdict::partly:
      return small_text + ";\n  with " + large_memory + " the kernels partly overlapped (concurrency " +
             fixed(large, 2) + ", between " + fixed(kSerialised, 1) + "\n  and " + fixed(kSideBySide, 1) +
             "): the second kernel's blocks started as the first's finished on some SMs. The article's claim\n  "
             "holds only in part here.";
    case ContentionVerdict::not_seen:
      return small_text + ";\n  with " + large_memory + " they still ran side by side (concurrency " +
             fixed(large, 2) + "):\n  the article's claim does not hold on this GPU at this size.";
  }
  return "";
}

void print_priorities(std::ostream& out, const PriorityResult& r) {
  const PriorityConfig& c = r.config;
  out << "stream priorities beside a full GPU: " << plural(c.flood_streams, "flood stream") << " of "
      << c.flood_block_us << "-us blocks, " << plural(c.flood_waves, "wave") << " per kernel\n  ("
      << plural(r.sm_count, "SM") << " x " << plural(r.flood_blocks_per_sm, "block") << " of "
      << plural(kFloodThreads, "thread") << " at once); " << plural(c.samples, "short kernel") << " of "
      << c.short_blocks << "x" << c.short_threads << " threads per run, one at a time;\n  "
      << plural(c.plan.repeats, "round") << " after " << c.plan.warmup << " warm-up; stream priorities from "
      << r.least_priority << " (least, the default) to " << r.greatest_priority << " (greatest)\n";
  Table table(
      {"short kernels", "priority", "median us", "p95 us", "min us", "max us", "flood busy", "flood blocks/ms"});
  auto row = [&](const std::string& name, const PriorityMode& m, bool flooded) {
    table.add_row({name, std::to_string(m.short_priority), us(m.latency.median_ms), us(m.latency.p95_ms),
                   us(m.latency.min_ms), us(m.latency.max_ms), flooded ? percent_text(m.flood_busy) : "-",
                   flooded ? fixed(m.flood_blocks_per_ms, 0) : "-"});
  };
  row("alone, idle GPU", r.idle, false);
  row("beside the flood, default priority", r.same_priority, true);
  row("beside the flood, greatest priority", r.high_priority, true);
  table.print(out);
  if (const int streams = c.flood_streams + 2; r.hardware_queues < streams) {
    out << "note: CUDA_DEVICE_MAX_CONNECTIONS=" << r.hardware_queues << " gives fewer hardware queues than the "
        << plural(streams, "stream") << " here: a short kernel\n  can wait behind a flood kernel on its own queue, whatever "
        << "its priority\n";
  }
  out << "latency: from an event recorded on the short kernels' stream just before each kernel to one just after it\n"
      << priority_conclusion(r) << '\n'
      << verification_line(r.verified, r.failure, "every short kernel's output and every flood block's count") << '\n';
}

void print_contention(std::ostream& out, const ContentionResult& r) {
  const ContentionConfig& c = r.config;
  out << "two streams competing for shared memory: each kernel " << plural(r.blocks, "block") << " (one per SM, "
      << plural(r.sm_count, "SM") << ") of " << plural(c.threads, "thread") << "\n  holding its SM " << c.kernel_us
      << " us; "
      << format_bytes(std::uint64_t(r.shared_per_sm_bytes)) << " of shared memory per SM, at most "
      << format_bytes(std::uint64_t(r.shared_per_block_max_bytes)) << " per block;\n  median of "
      << plural(c.plan.repeats, "round") << " after " << c.plan.warmup << " warm-up\n";
  Table table({"kernel", "shared memory per block", "blocks per SM", "alone us", "on two streams us", "concurrency"});
  auto row = [&](const std::string& name, const ContentionVariant& v) {
    table.add_row({name, format_bytes(std::uint64_t(v.shared_bytes)), std::to_string(v.blocks_per_sm),
                   us(v.alone.median_ms), us(v.together.median_ms), fixed(concurrency(v), 2)});
  };
  row("small", r.small);
  row("large", r.large);
  table.print(out);
  out << "concurrency = 2 x alone / on two streams: 2 when the streams' kernels run side by side, 1 when one waits\n"
      << contention_conclusion(r) << '\n'
      << verification_line(r.verified, r.failure, "every block's marker") << '\n';
}

nlohmann::json priorities_json(const PriorityResult& r) {
  const PriorityConfig& c = r.config;
  auto mode = [](const PriorityMode& m, bool flooded) {
    return nlohmann::json{{"short_priority", m.short_priority},
                          {"latency", summary_json(m.latency)},
                          {"flood_busy", flooded ? nlohmann::json(m.flood_busy) : nlohmann::json(nullptr)},
                          {"flood_blocks_per_ms",
                           flooded ? nlohmann::json(m.flood_blocks_per_ms) : nlohmann::json(nullptr)}};
  };
  return {
      {"name", "stream_priorities"},
      {"config",
       {{"samples", c.samples},
        {"flood_streams", c.flood_streams},
        {"flood_waves", c.flood_waves},
        {"flood_block_us", c.flood_block_us},
        {"flood_depth", c.flood_depth},
        {"flood_threads_per_block", kFloodThreads},
        {"short_blocks", c.short_blocks},
        {"short_threads", c.short_threads},
        {"short_steps", c.short_steps},
        {"gap_us", c.gap_us},
        {"warmup", c.plan.warmup},
        {"repeats", c.plan.repeats}}},
      {"priority_range", {{"least", r.least_priority}, {"greatest", r.greatest_priority}}},
      {"sm_count", r.sm_count},
      {"flood_blocks_per_sm", r.flood_blocks_per_sm},
      {"flood_blocks_per_kernel", r.flood_blocks_per_kernel},
      {"cuda_device_max_connections", r.hardware_queues},
      {"modes",
       {{"idle", mode(r.idle, false)},
        {"same_priority", mode(r.same_priority, true)},
        {"high_priority", mode(r.high_priority, true)}}},
      {"median_latency_speedup", priority_speedup(r)},
      {"flood_gaps", r.flood_gaps},
      {"flood_covered", r.flood_gaps == 0},
      {"verified", r.verified},
      {"failure", failure_json(r.verified, r.failure)},
      {"verdict", std::string(to_string(judge_priorities(r)))},
      {"conclusion", priority_conclusion(r)},
  };
}

nlohmann::json contention_json(const ContentionResult& r) {
  auto variant = [](const ContentionVariant& v) {
    return nlohmann::json{{"shared_bytes", v.shared_bytes},
                          {"blocks_per_sm", v.blocks_per_sm},
                          {"alone", summary_json(v.alone)},
                          {"together", summary_json(v.together)},
                          {"concurrency", concurrency(v)}};
  };
  return {
      {"name", "shared_memory_contention"},
      {"config",
       {{"kernel_us", r.config.kernel_us},
        {"threads", r.config.threads},
        {"warmup", r.config.plan.warmup},
        {"repeats", r.config.plan.repeats}}},
      {"sm_count", r.sm_count},
      {"blocks_per_kernel", r.blocks},
      {"shared_per_sm_bytes", r.shared_per_sm_bytes},
      {"shared_per_block_max_bytes", r.shared_per_block_max_bytes},
      {"variants", {{"small", variant(r.small)}, {"large", variant(r.large)}}},
      {"verified", r.verified},
      {"failure", failure_json(r.verified, r.failure)},
      {"verdict", std::string(to_string(judge_contention(r)))},
      {"conclusion", contention_conclusion(r)},
  };
}

CommonDefaults experiment_defaults() {
  CommonDefaults defaults;
  defaults.gemm_workload = false;
  defaults.host_memory_choice = false;
  return defaults;
}

double experiment_seconds(const RepeatPlan& plan, double round_us) {
  return kExperimentSetupSeconds + (plan.warmup + plan.repeats) * round_us * 1e-6;
}

DeviceInfo print_experiment_header(std::ostream& out, const char* subcommand, int device) {
  const DeviceInfo info = query_device_info(device);
  out << lesson03::kStage << ' ' << subcommand << " on " << info.summary() << "\n\n";
  return info;
}

int finish_experiment(const char* subcommand, const DeviceInfo& device, nlohmann::json config, bool verified,
                      const std::string& failure, const std::string& what_checked, const char* key,
                      nlohmann::json figures, const std::string& json_path) {
  StageResult result;
  result.stage = lesson03::kStage;
  result.device = device;
  result.config = std::move(config);
  result.verification.passed = verified;
  result.verification.method = what_checked;
  nlohmann::json doc = to_json(result);
  if (!verified) doc["verification"]["failure"] = failure;
  doc["subcommand"] = subcommand;
  doc[key] = std::move(figures);
  return finish_stage(std::cout, lesson03::kStage, doc, verified, std::nullopt, TimelineOptions{}, json_path);
}

}  // namespace csg::pool
