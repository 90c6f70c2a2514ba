#include "03_stream_pool_gemm/lab/count-sweep/count_sweep.hpp"

#include <deque>

#include "03_stream_pool_gemm/conclusions.hpp"
#include "03_stream_pool_gemm/lab/pool_experiment.hpp"
#include "03_stream_pool_gemm/report.hpp"
#include "experiment/lab.hpp"

namespace csg::pool {

namespace {

constexpr const char* kAbout = R"(
count-sweep: 1 to 1,024 streams on short batches: where more streams stop helping, and why

The stream pool from 1 to 1,024 streams on a workload of short batches (1,000 GEMMs of 128^3),
depth-first on pinned memory, each pool size with its own pipeline bound and the host's time to
issue it: where more streams stop helping, and why.
)";

// The quick suite's run takes 5 timed rounds: at 3, the one-stream pool ran
// 3.9% under its busiest stream's path (the same 100 batches on the same
// stream) on an H100, over its 2% tolerance; 10 rounds: 0.35%.
constexpr const char* kRuns = R"(
# 1 to 1,024 streams: bounds, appendix
q   -              --warmup 1 --repeats 5
# ... with 32 hardware queues instead of 8: the mechanism
fc  -
c   connections32  env=CUDA_DEVICE_MAX_CONNECTIONS=32
t   tiny           --count-sweep 1,4,64 --count-batches 30 --count-size 16 --warmup 0 --repeats 1
)";

constexpr int kMaxCountBatches = 100000;
constexpr int kMaxCountSize = 1024;
// Roughly what one call costs the host (a launch, an async copy, an event).
constexpr double kSecondsPerCall = 3e-6;

}  // namespace

void add_stream_count_options(StageCli& cli) {
  cli.add_text("count-sweep", "Pool sizes of the sweep, comma-separated, each at most once",
               "1,2,4,8,16,32,64,128,256,512,1024", "LIST");
  cli.add_int("count-batches", "Batches of the sweep's workload", 1000, 1, kMaxCountBatches);
  cli.add_int("count-size", "m = n = k of the sweep's GEMMs", 128, 1, kMaxCountSize);
}

StreamCountConfig read_stream_count_options(const StageCli& cli) {
  const std::vector<long long> sizes =
      parse_distinct_int_list("count-sweep", cli.get_string("count-sweep"), 1, kMaxPoolStreams);
  StreamCountConfig config{.sizes = {sizes.begin(), sizes.end()},
                           .batches = static_cast<int>(cli.get_int("count-batches")),
                           .size = static_cast<int>(cli.get_int("count-size"))};
  std::sort(config.sizes.begin(), config.sizes.end());
  return config;
}

double stream_count_seconds(const StreamCountConfig& config, const RepeatPlan& plan, const Rates& rates) {
  const WorkSeconds t = work_seconds(config.workload(), rates, false);
  const double calls = 3.0 * config.batches;
  double round = t.serial() + std::max(t.h2d, t.d2h);  // the one-stream sums and both ways
  for (const int streams : config.sizes) {
    const double issue = (calls + 2.0 * streams) * kSecondsPerCall;
    // The run, each resource alone, both ways at once, and the busiest stream's batches on one stream.
    round += std::max(t.overlapped(), issue) + t.kernels + t.h2d + t.d2h + std::max(t.h2d, t.d2h) +
             t.serial() / streams;
  }
  return (plan.warmup + plan.repeats) * round;
}

Verdict mechanism_verdict(std::vector<CountPoint> points, int queues) {
  if (points.empty()) throw std::invalid_argument("mechanism_verdict: no points");
  std::sort(points.begin(), points.end(), [](const CountPoint& a, const CountPoint& b) { return a.streams < b.streams; });
  const CountPoint best = *std::min_element(points.begin(), points.end(),
                                            [](const CountPoint& a, const CountPoint& b) { return a.ms < b.ms; });
  const CountPoint& largest = points.back();
  const double per_stream_us = largest.streams > best.streams
                                   ? 1000.0 * (largest.issue_ms - best.issue_ms) / (largest.streams - best.streams)
                                   : 0.0;
  Verdict verdict{.id = "count_sweep.mechanism",
                  .figures = {{"best_streams", best.streams},
                              {"best_ms", best.ms},
                              {"best_issue_ms", best.issue_ms},
                              {"largest_streams", largest.streams},
                              {"largest_ms", largest.ms},
                              {"largest_issue_ms", largest.issue_ms},
                              {"largest_limited_by", largest.limited_by ? nlohmann::json(to_string(*largest.limited_by))
                                                                        : nlohmann::json(nullptr)},
                              {"per_stream_us", per_stream_us},
                              {"hardware_queues", queues}},
                  .threshold = {{"worse_by", kWorseBy},
                                {"host_paced", kHostPaced},
                                {"issue_share_of_loss", kIssueShareOfLoss}}};
  const std::string issue_growth = "the host's time to issue a run went from " + fixed(best.issue_ms, 2) + " ms at " +
                                   plural(best.streams, "stream") + " to " + fixed(largest.issue_ms, 2) +
                                   " ms at " + std::to_string(largest.streams) + " (" + fixed(per_stream_us, 2) +
                                   " us per added stream: its wait on the fork event and its join event)";
  const std::string sharing = largest.streams > queues
                                  ? "; " + plural(largest.streams, "stream") + " share " +
                                        plural(queues, "hardware queue") +
                                        " (CUDA_DEVICE_MAX_CONNECTIONS), so most of them only wait"
                                  : "";
  if (largest.ms <= best.ms * (1.0 + kWorseBy)) {
    verdict.outcome = "only_waited";
    verdict.sentence = "why: extra streams only waited: " + issue_growth + ", and the run's time stayed within " +
                       percent_text(kWorseBy) + " of the best" + sharing + ".";
    return verdict;
  }
  const double lost_ms = largest.ms - best.ms;
  const double issue_grew_ms = largest.issue_ms - best.issue_ms;
  const bool host_paced = largest.issue_ms >= kHostPaced * largest.ms || largest.limited_by == BoundPath::host_issue;
  if (host_paced && issue_grew_ms >= kIssueShareOfLoss * lost_ms) {
    verdict.outcome = "host_paced";
    verdict.sentence = "why: the host sets the pace: " + issue_growth + "; at " + plural(largest.streams, "stream") +
                       " issuing alone takes " + percent_text(largest.issue_ms / largest.ms) +
                       " of the run, so every added stream adds host time the GPU waits for" + sharing + ".";
    return verdict;
  }
  verdict.outcome = "gpu_side";
  verdict.sentence = "why: the host's issue grew by only " + fixed(std::max(0.0, issue_grew_ms), 2) + " ms of the " +
                     fixed(lost_ms, 2) + " ms the largest pool lost (" + issue_growth +
                     "): the rest is lost on the GPU side, where many streams compete for the same queues and "
                     "engines" +
                     sharing + ".";
  return verdict;
}

namespace {

std::vector<CountPoint> count_points(const PoolMeasurements& runs) {
  std::vector<CountPoint> points;
  for (const auto* entry : sweep_entries(runs)) {
    const std::optional<PipelineBound> own = runs.bound_of(*entry);
    points.push_back({entry->streams, entry->stats.median_ms, entry->host_issue ? entry->host_issue->median_ms : 0.0,
                      own ? std::optional<BoundPath>(own->limited_by) : std::nullopt});
  }
  return points;
}

}  // namespace

void report_count_sweep(const CountSweepConfig& config, const PoolMeasurements& runs, Report& report) {
  const Workload work = config.count.workload();
  nlohmann::json config_doc = config_json(config.common);
  config_doc["streams_sweep"] = config.count.sizes;
  config_doc["device_slots"] = work.batches;
  const auto connections = max_connections_env();
  config_doc["cuda_device_max_connections"] =
      connections ? nlohmann::json(*connections) : nlohmann::json("unset (driver default 8)");
  report.result = measurements_result(report.result.stage, report.result.device, config_doc, runs);
  report.checked_runs("in " + plural(report.result.variants_verified, "variant"));

  report.out() << describe_workload(work, config.common.gemm) << "; median of "
               << plural(config.common.plan.repeats, "interleaved round") << " after " << config.common.plan.warmup
               << " warm-up\n";
  add_sweep(report, runs,
            "stream count, all the way: " + plural(work.batches, "GEMM") + " of " + std::to_string(config.count.size) +
                "x" + std::to_string(config.count.size) + "x" + std::to_string(config.count.size) +
                " (short batches, so what each stream costs shows), depth-first, pinned:",
            "count_sweep.plateau");
  const std::vector<CountPoint> points = count_points(runs);
  std::optional<Verdict> mechanism;
  if (!points.empty()) mechanism = report.verdict(mechanism_verdict(points, connections.value_or(8)));
  bool verified = true;
  nlohmann::json listed = nlohmann::json::array();
  for (const auto* entry : sweep_entries(runs)) {
    const std::optional<PipelineBound> own = runs.bound_of(*entry);
    verified = verified && entry->check.passed;
    if (!entry->check.passed) {
      report.out() << "stream-count sweep: verification FAILED at " << plural(entry->streams, "stream") << ": "
                   << entry->check.message() << '\n';
    }
    listed.push_back({{"streams", entry->streams},
                      {"median_ms", entry->stats.median_ms},
                      {"min_ms", entry->stats.min_ms},
                      {"p95_ms", entry->stats.p95_ms},
                      {"host_issue_ms", entry->host_issue ? nlohmann::json(entry->host_issue->median_ms) : nullptr},
                      {"bound_ms", own ? nlohmann::json(own->bound_ms) : nullptr},
                      {"limited_by", own ? nlohmann::json(to_string(own->limited_by)) : nullptr},
                      {"verified", entry->check.passed},
                      {"digest", entry->check.digest ? nlohmann::json(digest_text(*entry->check.digest)) : nullptr}});
  }
  add_variant_bounds(report, runs, [](const PoolMeasurements::Entry&) { return true; }, /*loose=*/false);

  nlohmann::json doc = {{"batches", config.count.batches},
                        {"m", config.count.size},
                        {"n", config.count.size},
                        {"k", config.count.size},
                        {"points", listed},
                        {"verified", verified}};
  if (const std::vector<SweepPoint> sweep = sweep_points(runs); !sweep.empty()) {
    const SweepVerdict verdict = judge_sweep(sweep);
    doc["plateau_streams"] = verdict.plateau_streams;
    doc["best_streams"] = verdict.best_streams;
    doc["worse_streams"] = verdict.worse;
    doc["conclusion"] = plateau_verdict("count_sweep.plateau", sweep).sentence;
    doc["mechanism"] = mechanism ? nlohmann::json(mechanism->sentence) : nlohmann::json(nullptr);
  }
  report.sections["stream_count"] = doc;
}

namespace {

CountSweepConfig read(const StageCli& cli, CommonOptions& common) {
  const StreamCountConfig count = read_stream_count_options(cli);
  common.work = count.workload();
  return {common, count};
}

Needs needs(const CountSweepConfig& config) {
  // A device slot per batch, so that the isolated sums can be checked too.
  const Workload& work = config.common.work;
  return {memory_needs(work, HostMemory::pinned, work.batches), "try fewer --count-batches or a smaller --count-size"};
}

Estimate estimate(const CountSweepConfig& config, int /*device*/) {
  const Gemm gemm;  // the article's naive kernel
  return {stream_count_seconds(config.count, config.common.plan, measure_rates(gemm, config.common.work.shape)),
          describe_workload(config.common.work, config.common.gemm)};
}

PoolMeasurements measure(const CountSweepConfig& config) {
  const Workload& work = config.common.work;
  const std::vector<int>& sizes = config.count.sizes;
  const Gemm gemm;  // the article's naive kernel
  BatchBuffers buffers(work, HostMemory::pinned, work.batches);
  buffers.fill_inputs(config.common.seed);
  const BatchOps ops = batch_ops(buffers, gemm);
  RunClock clock;
  PoolMeasurements runs(work, config.common.seed, gemm);
  std::deque<StreamPool> pools;
  add_sweep_variants(runs, buffers, pools, sizes, ops, clock);
  const BoundStreams bound_streams;
  add_bound_variants(runs, buffers, ops, bound_streams, clock);
  progress("stream count: " + plural(std::ssize(sizes), "pool size") + " from " + std::to_string(sizes.front()) +
           " to " + plural(sizes.back(), "stream") + ", " + plural(work.batches, "GEMM") + " of " +
           std::to_string(config.count.size) + "^3");
  measure_variants(runs, config.common.plan);
  return runs.measured_only();
}

// .defaults: no GEMM flags (its own workload: --count-batches x --count-size^3, the article's kernel), pinned memory.
const Experiment<CountSweepConfig, PoolMeasurements> kExperiment{.about = kAbout, .runs = kRuns,
    .defaults = {.host_memory = HostMemory::pinned, .gemm_workload = false, .host_memory_choice = false},
    .options = add_stream_count_options, .read = read, .needs = needs, .estimate = estimate, .measure = measure,
    .report = report_count_sweep};

}  // namespace

extern const Subcommand kCountSweep = make_subcommand<kExperiment>();

}  // namespace csg::pool
