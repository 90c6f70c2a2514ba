// Stage 03's lesson: its options, the check of its size, and the report of
// what main.cu measured. The figures go through the laboratory's
// PoolMeasurements, so that the lesson and the experiments share one bound,
// one results schema and one set of conclusions.
#include "lesson.hpp"

#include <algorithm>
#include <iostream>

#include "cli/options.hpp"
#include "cli/pool_options.hpp"
#include "conclusions.hpp"
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

using pool::IssueOrder;
using pool::PoolMeasurements;
using Kind = PoolMeasurements::Kind;
using Entry = PoolMeasurements::Entry;

constexpr const char* kDefaultSweep = "1,2,4,8";

CommonDefaults lesson_defaults() {
  CommonDefaults defaults;
  defaults.host_memory = HostMemory::pinned;
  defaults.kernel_choice = false;  // the article's naive kernel; other kernels: the laboratory's "kernels"
  defaults.host_memory_choice = false;
  return defaults;
}

Summary summary_of(const Samples& samples) { return summarize(samples); }

Entry whole_run(Kind kind, const Workload& work, const Samples& samples, const VerifyResult& check,
                HostMemory memory) {
  Entry entry;
  entry.kind = kind;
  entry.params = {{"host_memory", std::string(to_string(memory))}};
  entry.stats = summary_of(samples);
  entry.work = Work{double(work.batches) * double(work.a_bytes() + work.c_bytes()),
                    double(work.batches) * work.flops_per_batch()};
  entry.check = check;
  return entry;
}

Entry pool_entry(const Workload& work, const PoolFigures& p, bool sweep) {
  Entry entry = whole_run(sweep ? Kind::pool_sweep : Kind::pool, work, p.run, p.check, HostMemory::pinned);
  entry.name = "stream_pool";
  entry.params.update({{"streams", p.streams}, {"order", "depth_first"}, {"sweep", sweep}});
  entry.streams = p.streams;
  entry.order = IssueOrder::depth_first;
  entry.host_issue = summary_of(p.issued);
  return entry;
}

Entry bound_entry(const char* name, const Samples& samples, Work work, bool copies) {
  Entry entry;
  entry.kind = Kind::bound;
  entry.name = name;
  if (copies) entry.params = {{"host_memory", "pinned"}};
  entry.stats = summary_of(samples);
  entry.work = work;
  entry.verifiable = false;
  return entry;
}

Entry resource_entry(int streams, const char* resource, const Samples& samples, Work work) {
  Entry entry;
  entry.kind = Kind::resource;
  entry.name = "resource_alone";
  entry.resource = resource;
  entry.params = {{"streams", streams}, {"resource", resource}};
  entry.streams = streams;
  entry.stats = summary_of(samples);
  entry.work = work;
  entry.verifiable = false;
  return entry;
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
  std::vector<Entry> entries;
  entries.push_back(whole_run(Kind::serial, w, f.serial_pageable, f.serial_pageable_check, HostMemory::pageable));
  entries.push_back(whole_run(Kind::serial, w, f.serial_pinned, f.serial_pinned_check, HostMemory::pinned));
  entries.front().name = entries.back().name = "serial";
  for (const PoolFigures& p : f.pools) {
    if (p.streams == options.streams) entries.push_back(pool_entry(w, p, false));
  }
  for (const PoolFigures& p : f.pools) entries.push_back(pool_entry(w, p, true));
  entries.push_back(bound_entry("h2d_sum", f.h2d_sum, h2d, true));
  entries.push_back(bound_entry("kernel_sum", f.kernel_sum, kernels, false));
  entries.push_back(bound_entry("d2h_sum", f.d2h_sum, d2h, true));
  entries.push_back(bound_entry("h2d_first_op", f.h2d_first, {double(w.a_bytes()), 0.0}, true));
  entries.push_back(bound_entry("kernel_first_op", f.kernel_first, {0.0, w.flops_per_batch()}, false));
  entries.push_back(bound_entry("d2h_first_op", f.d2h_first, {double(w.c_bytes()), 0.0}, true));
  for (const PoolFigures& p : f.pools) {
    const double busiest_share = double(busiest_stream_batches(w.batches, p.streams)) / batches;
    entries.push_back(resource_entry(p.streams, "kernels", p.kernels, kernels));
    entries.push_back(resource_entry(p.streams, "h2d", p.h2d, h2d));
    entries.push_back(resource_entry(p.streams, "d2h", p.d2h, d2h));
    entries.push_back(resource_entry(p.streams, "both_ways", p.both_ways, both));
    entries.push_back(resource_entry(p.streams, "busiest_stream", p.busiest,
                                     {busiest_share * both.bytes, busiest_share * kernels.flops}));
  }
  return PoolMeasurements::measured(w, std::move(entries));
}

}  // namespace

std::optional<Options> parse_options(int argc, char** argv) {
  StageCli cli(kStage,
               "The article's stream pool: batch i's cudaMemcpyAsync H2D, gemm_naive and cudaMemcpyAsync D2H on "
               "stream i % streams, from pinned memory, against stage 01's serial loop.",
               lesson_defaults());
  cli.add_int("streams", "Streams in the pool (the article's pool_size); batch i runs on stream i % streams", 8, 1,
              kMaxPoolStreams);
  cli.add_text("streams-sweep", "Pool sizes to time beside it, comma-separated, or 'off'", kDefaultSweep, "LIST");
  const std::optional<CommonOptions> common = cli.parse(argc, argv);
  if (!common) {
    print_help(cli.help() + laboratory_help(kStage, laboratory()));
    return std::nullopt;
  }
  Options options;
  options.work = common->work;
  options.streams = static_cast<int>(cli.get_int("streams"));
  options.warmup = common->plan.warmup;
  options.repeats = common->plan.repeats;
  options.seed = common->seed;
  options.json_path = common->json_path;
  options.max_minutes = common->max_minutes;
  if (cli.get_string("streams-sweep") != "off") {
    for (const long long size : parse_distinct_int_list("streams-sweep", cli.get_string("streams-sweep"), 1,
                                                        kMaxPoolStreams)) {
      options.pool_sizes.push_back(static_cast<int>(size));
    }
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
  const DeviceInfo info = query_device_info(device);
  const PoolMeasurements runs = measurements(options, figures);
  CommonOptions common;
  common.work = options.work;
  common.plan = {options.warmup, options.repeats};
  common.seed = options.seed;
  common.host_memory = HostMemory::pinned;
  PoolConfig config;
  config.streams = options.streams;
  config.device_buffers = DeviceBuffers::per_batch;
  for (const int size : options.pool_sizes) config.sweep.push_back(size);
  const StageResult result = pool::pool_result(kStage, info, common, config, options.work.batches, runs);

  std::ostream& out = std::cout;
  const Workload& w = options.work;
  out << kStage << ": the article's stream pool, against stage 01's serial loop, in the same rounds\n"
      << info.summary() << '\n'
      << describe_workload(w, GemmChoice{}) << "; median of " << options.repeats << " rounds after "
      << options.warmup << " warm-up\n\n";

  const Entry& pageable = runs.serial(HostMemory::pageable);
  const Entry& pinned = runs.serial(HostMemory::pinned);
  const Entry& pool = runs.pool(IssueOrder::depth_first);
  const double baseline = pageable.stats.median_ms;
  Table table({"variant", "median ms", "vs serial pageable", "% of bound", "limited by", "verified"});
  auto row = [&](const std::string& name, const Entry& entry) {
    const std::optional<PipelineBound> bound = runs.bound_of(entry);
    table.add_row({name, fixed(entry.stats.median_ms, 2), fixed(baseline / entry.stats.median_ms, 2) + "x",
                   bound ? fixed(percent_of_bound(*bound, entry.stats.median_ms), 1) : "-",
                   bound ? std::string(to_string(bound->limited_by)) : "-", entry.check.passed ? "yes" : "NO"});
  };
  row("serial, pageable (stage 01)", pageable);
  row("serial, pinned", pinned);
  row("stream pool, " + std::to_string(options.streams) + (options.streams == 1 ? " stream" : " streams"), pool);
  table.print(out);

  const StageSums sums = runs.sums();
  const double pool_ms = pool.stats.median_ms;
  out << "\nthe pool: " << compare_phrase(pool_ms, pinned.stats.median_ms) << " serial on the same pinned memory\n"
      << pool::overlap_text(pool_ms, sums.h2d.median_ms, sums.kernel.median_ms, sums.d2h.median_ms) << '\n';
  pool::print_sweep(out, runs, "pool size (the article's pool_size):");

  const PipelineBound bound = *runs.bound_of(pool);
  out << "\n% of bound: 100% is the fastest any schedule of this work could be, the slowest of each resource's\n"
         "  work alone issued the same way (kernels, H2D, D2H, both directions at once, the host's issue) and of\n"
         "  the busiest stream's batches alone on one stream. The "
      << options.streams << "-stream pool: " << fixed(percent_of_bound(bound, pool_ms), 1)
      << "% (the noise allowed: " << percent_text(runs.tolerance_of(pool)) << ")\n";
  for (const Entry& entry : runs.entries()) {
    if (entry.kind != Kind::pool_sweep) continue;
    const PipelineBound own = *runs.bound_of(entry);
    if (pool::bound_beaten(percent_of_bound(own, entry.stats.median_ms), runs.tolerance_of(entry))) {
      out << pool::bound_text(std::to_string(entry.streams) + " streams", percent_of_bound(own, entry.stats.median_ms),
                              runs.tolerance_of(entry))
          << '\n';
    }
    const std::string gap = bound_gap_text("at " + std::to_string(entry.streams) + " streams the pool",
                                           entry.stats.median_ms, own);
    if (!gap.empty()) out << gap << '\n';
  }
  out << pool::regime_text(bound) << '\n';
  out << '\n' << result.verification.message() << " in each of the " << 2 + figures.pools.size() << " runs";
  if (result.verification.passed && result.verification.digest) {
    out << "; output digest " << digest_text(*result.verification.digest);
  }
  out << "\nbeyond the article: " << kStage << " --help lists the laboratory (other kernels, issue order, up to\n"
      << "  1,024 streams, priorities, contention, a timeline)\n";

  nlohmann::json doc = to_json(result);
  doc["subcommand"] = nullptr;
  if (!options.json_path.empty()) write_json_file(options.json_path, doc);
  return result.verification.passed;
}

}  // namespace csg::lesson03
