// Stage 03's lesson: its options, the check of its size, and the report of
// what main.cu measured. The figures go through the laboratory's
// PoolMeasurements, so that the lesson and the experiments share one bound,
// one results schema and one set of verdicts, and end as every run ends
// (experiment/report.hpp).
#include "lesson.hpp"

#include <algorithm>
#include <iostream>
#include <utility>

#include "lesson_report.hpp"

#include "cli/options.hpp"
#include "cli/pool_options.hpp"
#include "base/text.hpp"
#include "conclusions.hpp"
#include "experiment/report.hpp"
#include "measure/estimate.hpp"
#include "measurements.hpp"
#include "report.hpp"
#include "report/conclusions.hpp"
#include "report/device_info.hpp"
#include "report/result.hpp"
#include "report/table.hpp"
#include "workload/gemm.hpp"

namespace csg::lesson03 {
namespace {

using pool::PoolMeasurements;
using Kind = PoolMeasurements::Kind;
using Entry = PoolMeasurements::Entry;

constexpr const char* kDefaultSweep = "1,2,4,8";
constexpr const char* kDescription =
    "The article's stream pool: batch i's cudaMemcpyAsync H2D, gemm_naive and cudaMemcpyAsync D2H on stream "
    "i % streams, from pinned memory, against stage 01's serial loop.";

// One of the laboratory's entries for figures measured here: a run of the
// whole workload (checked), or a bound's run (nothing to check).
Entry entry(Kind kind, std::string name, nlohmann::json params, const Samples& samples, Work work,
            const VerifyResult* check = nullptr) {
  return {.kind = kind,
          .name = std::move(name),
          .params = std::move(params),
          .work = work,
          .stats = summarize(samples),
          .check = check != nullptr ? *check : VerifyResult{},
          .verifiable = check != nullptr};
}

Entry pool_entry(const PoolFigures& p, Work whole, bool sweep) {
  Entry e = entry(sweep ? Kind::pool_sweep : Kind::pool, "stream_pool",
                  {{"host_memory", "pinned"}, {"streams", p.streams}, {"order", "depth_first"}, {"sweep", sweep}}, p.run,
                  whole, &p.check);
  e.streams = p.streams;
  e.host_issue = summarize(p.issued);
  return e;
}

// The lesson's figures as the laboratory's measurements: the same entries
// (and so the same bound and JSON) as the laboratory's pool experiments.
PoolMeasurements measurements(const Options& options, const Figures& f) {
  const Workload& w = options.work;
  const double batches = w.batches;
  const Work h2d{batches * double(w.a_bytes()), 0.0};
  const Work kernels{0.0, batches * w.flops_per_batch()};
  const Work d2h{batches * double(w.c_bytes()), 0.0};
  const Work both{h2d.bytes + d2h.bytes, 0.0};
  const Work whole{h2d.bytes + d2h.bytes, kernels.flops};
  const nlohmann::json pinned = {{"host_memory", "pinned"}};
  std::vector<Entry> entries = {
      entry(Kind::serial, "serial", {{"host_memory", "pageable"}}, f.serial_pageable, whole, &f.serial_pageable_check),
      entry(Kind::serial, "serial", pinned, f.serial_pinned, whole, &f.serial_pinned_check)};
  for (const PoolFigures& p : f.pools) {
    if (p.streams == options.streams) entries.push_back(pool_entry(p, whole, false));
  }
  for (const PoolFigures& p : f.pools) entries.push_back(pool_entry(p, whole, true));
  for (Entry& e : std::vector<Entry>{
           entry(Kind::bound, "h2d_sum", pinned, f.h2d_sum, h2d),
           entry(Kind::bound, "kernel_sum", nlohmann::json::object(), f.kernel_sum, kernels),
           entry(Kind::bound, "d2h_sum", pinned, f.d2h_sum, d2h),
           entry(Kind::bound, "h2d_first_op", pinned, f.h2d_first, {double(w.a_bytes()), 0.0}),
           entry(Kind::bound, "kernel_first_op", nlohmann::json::object(), f.kernel_first, {0.0, w.flops_per_batch()}),
           entry(Kind::bound, "d2h_first_op", pinned, f.d2h_first, {double(w.c_bytes()), 0.0})}) {
    entries.push_back(std::move(e));
  }
  for (const PoolFigures& p : f.pools) {  // each resource alone on the pool, and its busiest stream
    const double busiest = double(busiest_stream_batches(w.batches, p.streams)) / batches;
    const std::pair<const char*, std::pair<const Samples*, Work>> runs[] = {
        {"kernels", {&p.kernels, kernels}}, {"h2d", {&p.h2d, h2d}},          {"d2h", {&p.d2h, d2h}},
        {"both_ways", {&p.both_ways, both}},
        {"busiest_stream", {&p.busiest, {busiest * both.bytes, busiest * kernels.flops}}}};
    for (const auto& [resource, run] : runs) {
      Entry e = entry(Kind::resource, "resource_alone", {{"streams", p.streams}, {"resource", resource}}, *run.first,
                      run.second);
      e.resource = resource;
      e.streams = p.streams;
      entries.push_back(std::move(e));
    }
  }
  return PoolMeasurements::measured(w, std::move(entries));
}

}  // namespace

std::optional<Options> parse_options(int argc, char** argv) {
  StageCli cli(kStage, kDescription, lesson_defaults(HostMemory::pinned));
  cli.add_int("streams", "Streams in the pool (the article's pool_size); batch i runs on stream i % streams", 8, 1,
              kMaxPoolStreams);
  cli.add_text("streams-sweep", "Pool sizes to time beside it, comma-separated, or 'off'", kDefaultSweep, "LIST");
  const std::optional<CommonOptions> common = cli.parse_or_help(argc, argv, laboratory_help(kStage, laboratory()));
  if (!common) return std::nullopt;
  Options options{lesson_options(*common), common->work, static_cast<int>(cli.get_int("streams")), {}};
  if (cli.get_string("streams-sweep") != "off") {
    const std::vector<long long> sizes =
        parse_distinct_int_list("streams-sweep", cli.get_string("streams-sweep"), 1, kMaxPoolStreams);
    options.pool_sizes.assign(sizes.begin(), sizes.end());
  }
  if (std::find(options.pool_sizes.begin(), options.pool_sizes.end(), options.streams) == options.pool_sizes.end()) {
    options.pool_sizes.push_back(options.streams);
  }
  std::sort(options.pool_sizes.begin(), options.pool_sizes.end());
  return options;
}

void check_size(const Options& options) {
  const Workload& w = options.work;
  const std::string smaller = "try fewer --batches or smaller --m, --n, --k";
  check_fits(combined(memory_needs(w, HostMemory::pageable), memory_needs(w, HostMemory::pinned)), smaller);
  // Per round: two serial runs, the isolated sums, and per pool its run, four
  // resource runs (each at most the serial time) and its busiest stream.
  const Gemm naive;
  const Rates rates = measure_rates(naive, w.shape);
  const WorkSeconds pinned = work_seconds(w, rates, false);
  const WorkSeconds pageable = work_seconds(w, rates, true);
  double round = pageable.serial() + 2.0 * pinned.serial();
  for (const int size : options.pool_sizes) {
    round += 4.0 * pinned.overlapped() + pinned.kernels + pinned.serial() / size;
  }
  check_estimate(round * options.rounds(), options.max_minutes, describe_workload(w, GemmChoice{}));
}

bool report(const Options& options, const Figures& figures) {
  const int device = 0;  // require_device chose it
  return report(std::cout, options, query_device_info(device), figures);
}

bool report(std::ostream& out, const Options& options, const DeviceInfo& info, const Figures& figures) {
  const PoolMeasurements runs = measurements(options, figures);
  const CommonOptions common = common_options(options, options.work, HostMemory::pinned);
  const PoolConfig config{.streams = options.streams, .sweep = options.pool_sizes,
                          .device_buffers = DeviceBuffers::per_batch, .warnings = {}};
  Report report(kStage, "", info);
  report.result = pool::pool_result(kStage, info, common, config, options.work.batches, runs);
  const VerifyResult& check = report.result.verification;
  report.checked_runs("in each of the " + std::to_string(2 + figures.pools.size()) + " runs" +
                      (check.passed && check.digest ? "; output digest " + digest_text(*check.digest) : ""));

  std::ostream& text = report.out();
  text << "the article's stream pool, against stage 01's serial loop, in the same rounds\n"
       << describe_workload(options.work, GemmChoice{}) << "; median of " << options.repeats << " rounds after "
       << options.warmup << " warm-up\n\n";

  const Entry& pageable = runs.serial(HostMemory::pageable);
  const Entry& pinned = runs.serial(HostMemory::pinned);
  const Entry& pool = runs.pool(IssueOrder::depth_first);
  const double baseline = pageable.stats.median_ms;
  struct Row {
    std::string name;
    const Entry* entry;
  };
  const std::vector<Row> rows = {{"serial, pageable (stage 01)", &pageable},
                                 {"serial, pinned", &pinned},
                                 {"stream pool, " + plural(options.streams, "stream"), &pool}};
  report.table(table_of<Row>(
      {{"variant", [](const Row& row) { return row.name; }},
       {"median ms", [](const Row& row) { return fixed(row.entry->stats.median_ms, 2); }},
       {"vs serial pageable", [baseline](const Row& row) { return fixed(baseline / row.entry->stats.median_ms, 2) + "x"; }},
       {"% of bound", [&runs](const Row& row) { return pool::percent_of_bound_text(runs, *row.entry); }},
       {"limited by", [&runs](const Row& row) { return pool::limited_by_text(runs, *row.entry); }},
       {"verified", [](const Row& row) { return std::string(row.entry->check.passed ? "yes" : "NO"); }}},
      rows));

  const StageSums sums = runs.sums();
  const double pool_ms = pool.stats.median_ms;
  text << '\n';
  report.verdict(comparison_verdict("pool.vs_serial_pinned", pool_ms, pinned.stats.median_ms,
                                    "the pool: " + compare_phrase(pool_ms, pinned.stats.median_ms) +
                                        " serial on the same pinned memory"));
  report.verdict(pool::overlap_verdict(pool_ms, sums.h2d.median_ms, sums.kernel.median_ms, sums.d2h.median_ms));
  pool::add_sweep(report, runs, "pool size (the article's pool_size):", "pool.plateau");

  text << "\n% of bound: the bound is the slowest of each resource's work alone issued the same way (kernels,\n"
          "  H2D, D2H, both directions at once, the host's issue) and of the busiest stream's batches alone on one stream\n";
  pool::add_main_bound(report, runs);
  // The other pool sizes, where they beat their bound or fell well short of it
  // (the sweep's entry of the main pool's size is the main pool's own figures).
  pool::add_variant_bounds(
      report, runs,
      [&options](const Entry& entry) { return entry.kind == Kind::pool_sweep && entry.streams != options.streams; },
      /*loose=*/true);
  report.verdict(pool::regime_verdict(*runs.bound_of(pool)));
  text << "beyond the article: " << kStage << " --help lists the laboratory (other kernels, issue order, up to\n"
       << "  1,024 streams, priorities, contention, a timeline)\n";
  return report.finish(out, options.json_path) == kExitOk;
}

}  // namespace csg::lesson03
