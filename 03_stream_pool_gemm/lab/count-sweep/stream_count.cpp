#include "03_stream_pool_gemm/lab/count-sweep/stream_count.hpp"

#include <algorithm>
#include <deque>
#include <iostream>
#include <stdexcept>

#include "base/progress.hpp"
#include "base/text.hpp"
#include "cli/pool_options.hpp"
#include "03_stream_pool_gemm/conclusions.hpp"
#include "03_stream_pool_gemm/lab/laboratory.hpp"
#include "03_stream_pool_gemm/lesson.hpp"
#include "measure/pipeline_bound.hpp"
#include "03_stream_pool_gemm/lab/pool_experiment.hpp"
#include "03_stream_pool_gemm/report.hpp"
#include "report/conclusions.hpp"
#include "report/device_info.hpp"
#include "report/table.hpp"
#include "stage.hpp"

namespace csg::pool {

// The first lines of its --help.
constexpr const char* kHelp =
    "The stream pool from 1 to 1,024 streams on a workload of short batches (1,000 GEMMs of 128^3), depth-first on "
    "pinned memory, each pool size with its own pipeline bound and the host's time to issue it: where more streams "
    "stop helping, and why.";

namespace {

constexpr int kMaxCountBatches = 100000;
constexpr int kMaxCountSize = 1024;
// The host's issue time is "most of the run" from this share on.
constexpr double kHostPaced = 0.9;
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
  StreamCountConfig config;
  config.batches = static_cast<int>(cli.get_int("count-batches"));
  config.size = static_cast<int>(cli.get_int("count-size"));
  config.sizes.clear();
  for (const long long streams : parse_distinct_int_list("count-sweep", cli.get_string("count-sweep"), 1,
                                                         kMaxPoolStreams)) {
    config.sizes.push_back(static_cast<int>(streams));
  }
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

std::string stream_count_mechanism(std::vector<CountPoint> points, int queues) {
  if (points.empty()) throw std::invalid_argument("stream_count_mechanism: no points");
  std::sort(points.begin(), points.end(), [](const CountPoint& a, const CountPoint& b) { return a.streams < b.streams; });
  const CountPoint best = *std::min_element(points.begin(), points.end(),
                                            [](const CountPoint& a, const CountPoint& b) { return a.ms < b.ms; });
  const CountPoint& largest = points.back();
  const double per_stream_us = largest.streams > best.streams
                                   ? 1000.0 * (largest.issue_ms - best.issue_ms) / (largest.streams - best.streams)
                                   : 0.0;
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
    return "why: extra streams only waited: " + issue_growth + ", and the run's time stayed within " +
           percent_text(kWorseBy) + " of the best" + sharing + ".";
  }
  const double lost_ms = largest.ms - best.ms;
  const double issue_grew_ms = largest.issue_ms - best.issue_ms;
  const bool host_paced = largest.issue_ms >= kHostPaced * largest.ms || largest.limited_by == BoundPath::host_issue;
  if (host_paced && issue_grew_ms >= 0.5 * lost_ms) {
    return "why: the host sets the pace: " + issue_growth + "; at " + plural(largest.streams, "stream") +
           " issuing alone takes " + percent_text(largest.issue_ms / largest.ms) +
           " of the run, so every added stream adds host time the GPU waits for" + sharing + ".";
  }
  return "why: the host's issue grew by only " + fixed(std::max(0.0, issue_grew_ms), 2) + " ms of the " +
         fixed(lost_ms, 2) + " ms the largest pool lost (" + issue_growth +
         "): the rest is lost on the GPU side, where many streams compete for the same queues and engines" + sharing +
         ".";
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

void print_stream_count(std::ostream& out, const StreamCountConfig& config, const PoolMeasurements& runs) {
  const Workload work = config.workload();
  print_sweep(out, runs,
              "stream count, all the way: " + plural(work.batches, "GEMM") + " of " + std::to_string(config.size) +
                  "x" + std::to_string(config.size) + "x" + std::to_string(config.size) +
                  " (short batches, so what each stream costs shows), depth-first, pinned:");
  const std::vector<CountPoint> points = count_points(runs);
  if (!points.empty()) out << stream_count_mechanism(points, max_connections_env().value_or(8)) << '\n';
  for (const auto* entry : sweep_entries(runs)) {
    if (!entry->check.passed) {
      out << "stream-count sweep: verification FAILED at " << plural(entry->streams, "stream") << ": "
          << entry->check.message() << '\n';
    }
  }
}

nlohmann::json stream_count_json(const StreamCountConfig& config, const PoolMeasurements& runs) {
  nlohmann::json doc = {{"batches", config.batches}, {"m", config.size}, {"n", config.size}, {"k", config.size}};
  nlohmann::json points = nlohmann::json::array();
  bool verified = true;
  for (const auto* entry : sweep_entries(runs)) {
    const std::optional<PipelineBound> own = runs.bound_of(*entry);
    verified = verified && entry->check.passed;
    points.push_back({{"streams", entry->streams},
                      {"median_ms", entry->stats.median_ms},
                      {"min_ms", entry->stats.min_ms},
                      {"p95_ms", entry->stats.p95_ms},
                      {"host_issue_ms", entry->host_issue ? nlohmann::json(entry->host_issue->median_ms) : nullptr},
                      {"bound_ms", own ? nlohmann::json(own->bound_ms) : nullptr},
                      {"limited_by", own ? nlohmann::json(to_string(own->limited_by)) : nullptr},
                      {"verified", entry->check.passed},
                      {"digest", entry->check.digest ? nlohmann::json(digest_text(*entry->check.digest)) : nullptr}});
  }
  doc["points"] = points;
  doc["verified"] = verified;
  if (const std::vector<SweepPoint> sweep = sweep_points(runs); !sweep.empty()) {
    const SweepVerdict verdict = judge_sweep(sweep);
    doc["plateau_streams"] = verdict.plateau_streams;
    doc["best_streams"] = verdict.best_streams;
    doc["worse_streams"] = verdict.worse;
    doc["conclusion"] = sweep_text(verdict);
    doc["mechanism"] = stream_count_mechanism(count_points(runs), max_connections_env().value_or(8));
  }
  return doc;
}

// 03_stream_pool_gemm count-sweep: "open 1000 streams when the PCIe link is
// full after 5": the pool from 1 to 1,024 streams on short batches, each size
// with its own bound, in interleaved rounds.
//   03_stream_pool_gemm count-sweep --count-sweep 1,8,64,1024
int run_count_sweep(int argc, char** argv) {
  CommonDefaults defaults;
  defaults.gemm_workload = false;  // its own workload: --count-batches x --count-size^3, the article's kernel
  defaults.host_memory = HostMemory::pinned;
  defaults.host_memory_choice = false;
  StageCli cli(subcommand_program(lesson03::kStage, "count-sweep"), kHelp, defaults);
  add_stream_count_options(cli);
  std::optional<CommonOptions> options = cli.parse_or_help(argc, argv);
  if (!options) return kExitOk;
  const StreamCountConfig config = read_stream_count_options(cli);
  options->work = config.workload();

  const int device = require_device();
  const Gemm gemm;  // the article's naive kernel
  const Workload& work = options->work;
  // A device slot per batch, so that the isolated sums can be checked too.
  check_fits(memory_needs(work, HostMemory::pinned, work.batches), "try fewer --count-batches or a smaller --count-size");
  check_estimate(stream_count_seconds(config, options->plan, measure_rates(gemm, work.shape)), options->max_minutes,
                 describe_workload(work, options->gemm));

  BatchBuffers buffers(work, HostMemory::pinned, work.batches);
  buffers.fill_inputs(options->seed);
  const BatchOps ops = batch_ops(buffers, gemm);
  RunClock clock;
  PoolMeasurements runs(work, options->seed, gemm);
  std::deque<StreamPool> pools;
  add_sweep_variants(runs, buffers, pools, config.sizes, ops, clock);
  const BoundStreams bound_streams;
  add_bound_variants(runs, buffers, ops, bound_streams, clock);
  progress("stream count: " + plural(static_cast<long long>(config.sizes.size()), "pool size") + " from " +
           std::to_string(config.sizes.front()) + " to " + plural(config.sizes.back(), "stream") + ", " +
           plural(work.batches, "GEMM") + " of " + std::to_string(config.size) + "^3");
  measure_variants(runs, options->plan);

  nlohmann::json config_doc = config_json(*options);
  config_doc["streams_sweep"] = config.sizes;
  config_doc["device_slots"] = work.batches;
  const auto connections = max_connections_env();
  config_doc["cuda_device_max_connections"] =
      connections ? nlohmann::json(*connections) : nlohmann::json("unset (driver default 8)");
  const StageResult result = measurements_result(lesson03::kStage, query_device_info(device), config_doc, runs);
  std::cout << lesson03::kStage << " count-sweep on " << result.device.summary() << '\n'
            << describe_workload(work, options->gemm) << "; median of "
            << plural(options->plan.repeats, "interleaved round") << " after " << options->plan.warmup << " warm-up\n";
  print_stream_count(std::cout, config, runs);
  print_beaten_bounds(std::cout, result);
  print_verification(std::cout, result);
  nlohmann::json doc = subcommand_json(result, "count-sweep");
  doc["stream_count"] = stream_count_json(config, runs);
  return finish_stage(std::cout, lesson03::kStage, doc, result.verification.passed, std::nullopt, TimelineOptions{},
                      options->json_path);
}

// What scripts/run_suite.sh, the GPU-box check and ctest run of it (STAGE --list).
constexpr Run kRuns[] = {
    // 1 to 1,024 streams: bounds, appendix
    {.modes = "q", .args = "--warmup 1 --repeats 5"},
    {.modes = "fc"},
    // ... with 32 hardware queues instead of 8: the mechanism
    {.modes = "c", .name = "connections32", .env = "CUDA_DEVICE_MAX_CONNECTIONS=32"},
    {.modes = "t", .name = "tiny", .args = "--count-sweep 1,4,64 --count-batches 30 --count-size 16 --warmup 0 --repeats 1"},
};

const Subcommand kCountSweep{"count-sweep",
                             "1 to 1,024 streams on short batches: where more streams stop helping, and why",
                             run_count_sweep, kRuns};

}  // namespace csg::pool
