#include "03_stream_pool_gemm/lab/competition.hpp"
#include "experiment/lab.hpp"

namespace csg::pool {
namespace {

constexpr const char* kAbout = R"(
priorities: short kernels beside a flood of long ones, at the default and greatest priority

Stream priorities: short kernels launched one at a time beside a flood of long ones that keeps every
SM full, on a stream of the default and of the greatest priority, and alone on an idle GPU; each
round runs the three once.
)";

constexpr const char* kRuns = R"(
# short kernels beside a flood; shared memory  appendix
qfc  -
t    tiny  ctest=whole_gpu --priority-samples 20 --warmup 0 --repeats 1
s    -     --priority-samples 4 --flood-waves 1 --flood-depth 2 --warmup 0 --repeats 1
)";

}  // namespace

double priorities_seconds(const PriorityConfig& p) { return beside_flood_seconds(p, 1, 1, 1); }

// ---- the verdicts ----------------------------------------------------------------------

double priority_speedup(const PriorityResult& r) {
  if (r.high_priority.latency.median_ms <= 0.0) return 0.0;
  return r.same_priority.latency.median_ms / r.high_priority.latency.median_ms;
}

PriorityVerdict judge_priorities(const PriorityResult& r) {
  return judge_latency(r, r.same_priority.flood_busy, priority_speedup(r));
}

Verdict priorities_verdict(const PriorityResult& r) {
  const Summary& same = r.same_priority.latency;
  const Summary& high = r.high_priority.latency;
  const PriorityVerdict judged = judge_priorities(r);
  Verdict verdict{.id = "priorities.latency",
                  .outcome = std::string(to_string(judged)),
                  .figures = {{"same_priority_median_ms", same.median_ms},
                              {"high_priority_median_ms", high.median_ms},
                              {"idle_median_ms", r.idle.latency.median_ms},
                              {"median_latency_speedup", priority_speedup(r)},
                              {"flood_busy", r.same_priority.flood_busy},
                              {"flood_gaps", r.flood_gaps},
                              {"priority_range", {r.device.least_priority, r.device.greatest_priority}}},
                  .threshold = {{"priority_within", kPriorityWithin}, {"flood_full", kFloodFull}}};
  const std::string figures = "median " + us(same.median_ms) + " us at the default priority, " +
                              us(high.median_ms) + " us at the greatest (p95 " + us(same.p95_ms) + " / " +
                              us(high.p95_ms) + " us; idle GPU " + us(r.idle.latency.median_ms) + " us)";
  switch (judged) {
    case PriorityVerdict::not_verified:
    case PriorityVerdict::flood_gaps:
    case PriorityVerdict::one_level:
    case PriorityVerdict::gpu_not_full:
      verdict.sentence = failed_check_sentence(judged, r, r.same_priority.flood_busy, "priorities");
      break;
    case PriorityVerdict::helps:
      verdict.sentence = "priority cut the short kernels' median latency " + fixed(priority_speedup(r), 1) +
                         "x: the article's claim holds here.\n  " + figures +
                         "\n  with every SM full no block is preempted, but a kernel at the greatest priority took "
                         "the first slot a\n  flood block freed, while at the default priority it queued behind the "
                         "flood's pending blocks.";
      break;
    case PriorityVerdict::no_difference:
      verdict.sentence = "priority made no difference to the short kernels' latency within " +
                         percent_text(kPriorityWithin) +
                         ": the article's claim does not hold\n  on this GPU at this size (the block scheduler did not "
                         "favour the high-priority stream).\n  " + figures;
      break;
    case PriorityVerdict::worse:
      verdict.sentence = "priority made the short kernels' latency worse, " + fixed(1.0 / priority_speedup(r), 2) +
                         "x: the article's claim does not hold on this GPU\n  at this size.\n  " + figures;
      break;
  }
  return verdict;
}

std::optional<Verdict> flood_cost_verdict(const PriorityResult& r) {
  const PriorityVerdict judged = judge_priorities(r);
  if (judged != PriorityVerdict::helps && judged != PriorityVerdict::no_difference && judged != PriorityVerdict::worse) {
    return std::nullopt;
  }
  const double same = r.same_priority.flood_blocks_per_ms;
  const double high = r.high_priority.flood_blocks_per_ms;
  const nlohmann::json figures = {{"high_priority_blocks_per_ms", high}, {"same_priority_blocks_per_ms", same}};
  std::string text = "the flood ran " + fixed(high, 0) + " blocks/ms beside the high-priority stream and " +
                     fixed(same, 0) + " beside the default one\n  (" + percent_text(r.high_priority.flood_busy) +
                     " and " + percent_text(r.same_priority.flood_busy) + " of the GPU's block slots busy): ";
  if (same <= 0.0 || high <= 0.0) {
    return Verdict{.id = "priorities.flood_cost",
                   .outcome = "not_measured",
                   .figures = figures,
                   .threshold = kEqualWithin,
                   .sentence = text + "no figure to compare."};
  }
  // Time per block, so that the common "faster/slower" threshold applies.
  Verdict verdict = comparison_verdict(
      "priorities.flood_cost", 1.0 / high, 1.0 / same,
      text + by_comparison(compare_times(1.0 / high, 1.0 / same),
                           "the flood even ran " + percent_text(high / same - 1.0) +
                               " faster beside the high-priority stream.",
                           "priority cost the long kernels nothing measurable (within " +
                               percent_text(kEqualWithin) + ").",
                           "priority cost the long kernels " + percent_text(1.0 - high / same) +
                               " of their throughput."));
  verdict.figures = figures;
  return verdict;
}

// ---- the report --------------------------------------------------------------------------

namespace {

// Every figure: config, device figures, every summary in ms, the derived ratios, the verdict's outcome.
nlohmann::json priorities_json(const PriorityResult& r) {
  auto mode = [](const PriorityMode& m, bool flooded) {
    nlohmann::json doc = flood_way_json(m, flooded, summary_json(m.latency));
    doc["short_priority"] = m.short_priority;
    return doc;
  };
  nlohmann::json doc = flood_run_json("stream_priorities", r.config, r);
  doc["flood_blocks_per_kernel"] = r.flood_blocks_per_kernel;
  doc["cuda_device_max_connections"] = r.device.hardware_queues;
  doc["modes"] = {{"idle", mode(r.idle, false)},
                  {"same_priority", mode(r.same_priority, true)},
                  {"high_priority", mode(r.high_priority, true)}};
  doc["median_latency_speedup"] = priority_speedup(r);
  doc["flood_covered"] = r.flood_gaps == 0;
  doc["verdict"] = std::string(to_string(judge_priorities(r)));
  return doc;
}

}  // namespace

void report_priorities(const PriorityConfig& /*config*/, const PriorityResult& r, Report& report) {
  const PriorityConfig& c = r.config;
  std::ostream& out = report.out();
  out << "\nstream priorities beside a full GPU: " << plural(c.flood_streams, "flood stream") << " of "
      << c.flood_block_us << "-us blocks, " << plural(c.flood_waves, "wave") << " per kernel\n  ("
      << plural(r.device.sm_count, "SM") << " x " << plural(r.device.flood_blocks_per_sm, "block") << " of "
      << plural(kFloodThreads, "thread") << " at once); " << plural(c.samples, "short kernel") << " of "
      << c.short_blocks << "x" << c.short_threads << " threads per run, one at a time;\n  "
      << plural(c.plan.repeats, "round") << " after " << c.plan.warmup << " warm-up; stream priorities from "
      << r.device.least_priority << " (least, the default) to " << r.device.greatest_priority << " (greatest)\n";
  struct Row {
    const char* name;
    const PriorityMode* mode;
    bool flooded;
  };
  const Row rows[] = {{"alone, idle GPU", &r.idle, false},
                      {"beside the flood, default priority", &r.same_priority, true},
                      {"beside the flood, greatest priority", &r.high_priority, true}};
  report.table(table_of<Row>(
      {{"short kernels", [](const Row& w) { return std::string(w.name); }},
       {"priority", [](const Row& w) { return std::to_string(w.mode->short_priority); }},
       {"median us", [](const Row& w) { return us(w.mode->latency.median_ms); }},
       {"p95 us", [](const Row& w) { return us(w.mode->latency.p95_ms); }},
       {"min us", [](const Row& w) { return us(w.mode->latency.min_ms); }},
       {"max us", [](const Row& w) { return us(w.mode->latency.max_ms); }},
       {"flood busy", [](const Row& w) { return w.flooded ? percent_text(w.mode->flood_busy) : "-"; }},
       {"flood blocks/ms", [](const Row& w) { return w.flooded ? fixed(w.mode->flood_blocks_per_ms, 0) : "-"; }}},
      rows));
  if (const int streams = c.flood_streams + 2; r.device.hardware_queues < streams) {
    out << "note: CUDA_DEVICE_MAX_CONNECTIONS=" << r.device.hardware_queues << " gives fewer hardware queues than the "
        << plural(streams, "stream") << " here: a short kernel\n  can wait behind a flood kernel on its own queue, "
        << "whatever its priority\n";
  }
  out << "latency: from an event recorded on the short kernels' stream just before each kernel to one just after it\n";
  std::string conclusion = report.verdict(priorities_verdict(r)).sentence;
  if (std::optional<Verdict> cost = flood_cost_verdict(r)) conclusion += "\n  " + report.verdict(std::move(*cost)).sentence;
  finish_flood_report(report, c, r, 3, "stream_priorities", priorities_json(r), conclusion);
}

namespace {

void options(StageCli& cli) { add_priority_options(cli); }

Estimate estimate(const PriorityConfig& config, int /*device*/) {
  return {priorities_seconds(config),
          std::to_string(config.samples) + " short kernels per mode and round beside a flood of long ones"};
}

const Experiment<PriorityConfig, PriorityResult> kExperiment{.about = kAbout, .runs = kRuns,
    .defaults = competition_defaults(), .options = options, .read = read_priority_options,
    .needs = short_kernel_needs, .estimate = estimate, .measure = measure_priorities, .report = report_priorities};

}  // namespace

extern const Subcommand kPriorities = make_subcommand<kExperiment>();

}  // namespace csg::pool
