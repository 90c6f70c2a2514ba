#include "03_stream_pool_gemm/lab/competition.hpp"
#include "03_stream_pool_gemm/lesson.hpp"
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
s    -     --priority-samples 4 --warmup 0 --repeats 1
)";

// Host time around each short kernel beyond its own latency: the launch, two
// event records, the synchronise and the top-up of the flood (measured order
// of magnitude on an H200: tens of us).
constexpr double kHostPerSampleUs = 40.0;
// A short kernel's own run, for the estimate only (measured: a few us).
constexpr double kShortKernelUs = 5.0;
// What every run checks.
constexpr const char* kChecked = "every short kernel's output and every flood block's count";

}  // namespace

void add_priority_options(StageCli& cli, long long most) {
  cli.add_int("priority-samples", "Short kernels per mode and round (fewer: a quicker, noisier run)",
              PriorityConfig{}.samples, 1, most);
}

PriorityConfig read_priority_options(const StageCli& cli, const CommonOptions& options) {
  PriorityConfig config;
  config.samples = static_cast<int>(cli.get_int("priority-samples"));
  config.plan = options.plan;
  config.seed = static_cast<std::uint32_t>(options.seed);  // the sequences' start; any value checks the same
  return config;
}

double beside_flood_seconds(const PriorityConfig& p, int idle, int queued, int preferred) {
  const double flood_kernel_us = double(p.flood_waves) * p.flood_block_us;
  // At the default priority a short kernel waits, on average, for about
  // half of the flood kernels queued ahead of it (one per flood stream);
  // at the greatest, for about half a flood block.
  const double per_sample_us = kShortKernelUs + p.gap_us + kHostPerSampleUs;
  const double idle_us = p.samples * per_sample_us;
  const double queued_us = p.samples * (per_sample_us + 0.5 * p.flood_streams * flood_kernel_us);
  const double preferred_us = p.samples * (per_sample_us + 0.5 * p.flood_block_us);
  // Each flooded run also fills the GPU before its first short kernel and
  // drains the queued flood after its last.
  const double fill_drain_us = 2.0 * (p.flood_depth + 1) * flood_kernel_us;
  return competition_seconds(p.plan, idle * idle_us + queued * (queued_us + fill_drain_us) +
                                         preferred * (preferred_us + fill_drain_us));
}

double priorities_seconds(const PriorityConfig& p) { return beside_flood_seconds(p, 1, 1, 1); }

// ---- the verdicts ----------------------------------------------------------------------

std::string_view to_string(PriorityVerdict verdict) {
  return name_of(verdict, {"not_verified", "flood_gaps", "one_level", "gpu_not_full", "helps", "no_difference", "worse"});
}

double priority_speedup(const PriorityResult& r) {
  if (r.high_priority.latency.median_ms <= 0.0) return 0.0;
  return r.same_priority.latency.median_ms / r.high_priority.latency.median_ms;
}

PriorityVerdict judge_latency(const FloodChecks& c, double speedup, bool needs_two_levels) {
  if (!c.verified) return PriorityVerdict::not_verified;
  if (c.flood_gaps > 0) return PriorityVerdict::flood_gaps;
  if (needs_two_levels && c.least_priority == c.greatest_priority) return PriorityVerdict::one_level;
  if (c.flood_busy < kFloodFull) return PriorityVerdict::gpu_not_full;
  if (speedup >= 1.0 + kPriorityWithin) return PriorityVerdict::helps;
  if (speedup * (1.0 + kPriorityWithin) <= 1.0) return PriorityVerdict::worse;
  return PriorityVerdict::no_difference;
}

std::string failed_check_sentence(PriorityVerdict failed, const FloodChecks& c, const std::string& subject) {
  switch (failed) {
    case PriorityVerdict::not_verified:
      return "no conclusion about " + subject + ": a check failed (" +
             (c.failure.empty() ? std::string("verification failed") : c.failure) + ").";
    case PriorityVerdict::flood_gaps:
      return "no conclusion about " + subject + ": a flood stream ran dry " + plural(c.flood_gaps, "time") +
             " before the short kernels were done,\n  so some of them found free slots: the GPU was not full "
             "throughout (a busy host can cause this: run again\n  on a quiet machine).";
    case PriorityVerdict::one_level:
      return "this GPU offers a single stream priority ([" + std::to_string(c.least_priority) + ", " +
             std::to_string(c.greatest_priority) +
             "]): both runs used it, so there is nothing to compare;\n  the article's claim can't be shown here.";
    case PriorityVerdict::gpu_not_full:
      return "no conclusion about " + subject + ": the flood kept only " + fixed(100.0 * c.flood_busy, 1) +
             "% of the GPU's block slots busy (below " + percent_text(kFloodFull) +
             "),\n  so short kernels could find free slots at any priority.";
    default:
      return "";
  }
}

FloodChecks flood_checks(const PriorityResult& r) {
  return {.verified = r.verified, .failure = r.failure, .flood_gaps = r.flood_gaps,
          .least_priority = r.least_priority, .greatest_priority = r.greatest_priority,
          .flood_busy = r.same_priority.flood_busy};
}

PriorityVerdict judge_priorities(const PriorityResult& r) { return judge_latency(flood_checks(r), priority_speedup(r)); }

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
                              {"priority_range", {r.least_priority, r.greatest_priority}}},
                  .threshold = {{"priority_within", kPriorityWithin}, {"flood_full", kFloodFull}}};
  const std::string figures = "median " + us(same.median_ms) + " us at the default priority, " +
                              us(high.median_ms) + " us at the greatest (p95 " + us(same.p95_ms) + " / " +
                              us(high.p95_ms) + " us; idle GPU " + us(r.idle.latency.median_ms) + " us)";
  switch (judged) {
    case PriorityVerdict::not_verified:
    case PriorityVerdict::flood_gaps:
    case PriorityVerdict::one_level:
    case PriorityVerdict::gpu_not_full:
      verdict.sentence = failed_check_sentence(judged, flood_checks(r), "priorities");
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
  Verdict verdict = comparison_verdict("priorities.flood_cost", 1.0 / high, 1.0 / same, "");
  verdict.figures = figures;
  switch (compare_times(1.0 / high, 1.0 / same)) {
    case Comparison::same:
      verdict.sentence = text + "priority cost the long kernels nothing measurable (within " + percent_text(kEqualWithin) + ").";
      break;
    case Comparison::slower:
      verdict.sentence = text + "priority cost the long kernels " + percent_text(1.0 - high / same) + " of their throughput.";
      break;
    case Comparison::faster:
      verdict.sentence = text + "the flood even ran " + percent_text(high / same - 1.0) + " faster beside the high-priority stream.";
      break;
  }
  return verdict;
}

// ---- the report --------------------------------------------------------------------------

namespace {

// Every figure: config, device figures, every summary in ms, the derived ratios, the verdict's outcome.
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
      {"config", flood_config_json(c)},
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
  };
}

}  // namespace

void report_priorities(const PriorityConfig& config, const PriorityResult& r, Report& report) {
  const PriorityConfig& c = r.config;
  std::ostream& out = report.out();
  out << "\nstream priorities beside a full GPU: " << plural(c.flood_streams, "flood stream") << " of "
      << c.flood_block_us << "-us blocks, " << plural(c.flood_waves, "wave") << " per kernel\n  ("
      << plural(r.sm_count, "SM") << " x " << plural(r.flood_blocks_per_sm, "block") << " of "
      << plural(kFloodThreads, "thread") << " at once); " << plural(c.samples, "short kernel") << " of "
      << c.short_blocks << "x" << c.short_threads << " threads per run, one at a time;\n  "
      << plural(c.plan.repeats, "round") << " after " << c.plan.warmup << " warm-up; stream priorities from "
      << r.least_priority << " (least, the default) to " << r.greatest_priority << " (greatest)\n";
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
  if (const int streams = c.flood_streams + 2; r.hardware_queues < streams) {
    out << "note: CUDA_DEVICE_MAX_CONNECTIONS=" << r.hardware_queues << " gives fewer hardware queues than the "
        << plural(streams, "stream") << " here: a short kernel\n  can wait behind a flood kernel on its own queue, "
        << "whatever its priority\n";
  }
  out << "latency: from an event recorded on the short kernels' stream just before each kernel to one just after it\n";
  const Verdict& latency = report.verdict(priorities_verdict(r));
  std::string conclusion = latency.sentence;
  if (std::optional<Verdict> cost = flood_cost_verdict(r)) conclusion += "\n  " + report.verdict(std::move(*cost)).sentence;

  report.result.config = {{"priority_samples", config.samples},
                          {"warmup", config.plan.warmup},
                          {"repeats", config.plan.repeats},
                          {"seed", config.seed}};
  verify_runs(report.result, r.verified, r.failure, 3 * (c.plan.warmup + c.plan.repeats), kChecked);
  nlohmann::json figures = priorities_json(r);
  figures["conclusion"] = conclusion;
  report.sections["stream_priorities"] = figures;
}

namespace {

void options(StageCli& cli) { add_priority_options(cli); }

PriorityConfig read(const StageCli& cli, CommonOptions& common) { return read_priority_options(cli, common); }

Estimate estimate(const PriorityConfig& config, int /*device*/) {
  return {priorities_seconds(config), std::to_string(config.samples) + " short kernels per mode and round beside a flood"};
}

PriorityResult measure(const PriorityConfig& config) {
  progress("stream priorities: short kernels beside a flood of long ones");
  return measure_priorities(config);
}

const Experiment<PriorityConfig, PriorityResult> kExperiment{.about = kAbout, .runs = kRuns,
    .defaults = competition_defaults(), .options = options, .read = read, .needs = short_kernel_needs,
    .estimate = estimate, .measure = measure, .report = report_priorities};

}  // namespace

extern const Subcommand kPriorities = make_subcommand<kExperiment>();

}  // namespace csg::pool
