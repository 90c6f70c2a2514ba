#include "report.hpp"

#include <algorithm>

#include "base/units.hpp"
#include "cli/pool_options.hpp"
#include "conclusions.hpp"
#include "report/conclusions.hpp"
#include "report/table.hpp"

namespace csg::pool {
namespace {

using Kind = PoolMeasurements::Kind;

std::vector<const PoolMeasurements::Entry*> sweep_entries(const PoolMeasurements& runs) {
  std::vector<const PoolMeasurements::Entry*> sweep;
  for (const auto& entry : runs.entries()) {
    if (entry.kind == Kind::pool_sweep) sweep.push_back(&entry);
  }
  return sweep;
}

std::vector<SweepPoint> sweep_points(const PoolMeasurements& runs) {
  std::vector<SweepPoint> points;
  for (const auto* entry : sweep_entries(runs)) points.push_back({entry->streams, entry->stats.median_ms});
  return points;
}

}  // namespace

void print_sweep(std::ostream& out, const PoolMeasurements& runs, const std::string& heading) {
  const std::vector<const PoolMeasurements::Entry*> sweep = sweep_entries(runs);
  if (sweep.empty()) return;
  const double first_ms = sweep.front()->stats.median_ms;
  out << '\n' << heading << '\n';
  Table table({"streams", "median ms", "vs " + std::to_string(sweep.front()->streams) + " stream(s)",
               "host issue ms", "% of bound", "limited by", "verified"});
  for (const auto* entry : sweep) {
    const std::optional<PipelineBound> own = runs.bound_of(*entry);
    table.add_row({std::to_string(entry->streams), fixed(entry->stats.median_ms, 2),
                   fixed(first_ms / entry->stats.median_ms, 2) + "x",
                   entry->host_issue ? fixed(entry->host_issue->median_ms, 2) : "-",
                   own ? fixed(percent_of_bound(*own, entry->stats.median_ms), 1) : "-",
                   own ? std::string(to_string(own->limited_by)) : "-", entry->check.passed ? "yes" : "NO"});
  }
  table.print(out);
  out << sweep_text(judge_sweep(sweep_points(runs))) << '\n';
  const auto connections = max_connections_env();
  const int queues = connections.value_or(8);
  if (std::any_of(sweep.begin(), sweep.end(), [queues](const auto* e) { return e->streams > queues; })) {
    out << "CUDA_DEVICE_MAX_CONNECTIONS: "
        << (connections ? std::to_string(*connections) : std::string("unset (driver default 8)"))
        << "; pools larger than that share hardware queues, and depth-first issue can then make a stream's\n"
        << "H2D wait behind another stream's kernel (a false dependency); breadth-first issue avoids most of it.\n";
  }
}

std::vector<CountPoint> count_points(const PoolMeasurements& runs) {
  std::vector<CountPoint> points;
  for (const auto* entry : sweep_entries(runs)) {
    const std::optional<PipelineBound> own = runs.bound_of(*entry);
    points.push_back({entry->streams, entry->stats.median_ms, entry->host_issue ? entry->host_issue->median_ms : 0.0,
                      own ? std::optional<BoundPath>(own->limited_by) : std::nullopt});
  }
  return points;
}

void print_stream_count(std::ostream& out, const StreamCountConfig& config, const PoolMeasurements& runs) {
  const Workload work = config.workload();
  print_sweep(out, runs,
              "stream count, all the way: " + std::to_string(work.batches) + " GEMMs of " + std::to_string(config.size) +
                  "x" + std::to_string(config.size) + "x" + std::to_string(config.size) +
                  " (short batches, so what each stream costs shows), depth-first, pinned:");
  const std::vector<CountPoint> points = count_points(runs);
  if (!points.empty()) out << stream_count_mechanism(points, max_connections_env().value_or(8)) << '\n';
  for (const auto* entry : sweep_entries(runs)) {
    if (!entry->check.passed) {
      out << "stream-count sweep: verification FAILED at " << entry->streams << " streams: " << entry->check.message()
          << '\n';
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

StageResult pool_result(const std::string& stage, const DeviceInfo& device, const CommonOptions& options,
                        const PoolConfig& config, int device_slots, const PoolMeasurements& runs) {
  const Workload& work = options.work;
  const std::uint64_t pair_bytes = work.a_bytes() + work.c_bytes();
  StageResult result;
  result.stage = stage;
  result.device = device;
  result.config = config_json(options);
  result.config["streams"] = config.streams;
  result.config["streams_sweep"] = config.sweep;
  result.config["device_buffers"] = to_string(config.device_buffers);
  result.config["device_slots"] = device_slots;
  result.config["device_bytes"] = {
      {"allocated_per_host_kind", std::uint64_t(device_slots) * pair_bytes + work.b_bytes()},
      {"slots_layout", std::uint64_t(config.streams) * pair_bytes + work.b_bytes()},
      {"per_batch_layout", std::uint64_t(work.batches) * pair_bytes + work.b_bytes()},
  };
  const auto connections = max_connections_env();
  result.config["cuda_device_max_connections"] =
      connections ? nlohmann::json(*connections) : nlohmann::json("unset (driver default 8)");

  bool all_passed = true;
  int verified = 0;
  double max_percent = 0.0;
  for (const auto& entry : runs.entries()) {
    Measurement m{entry.name, entry.params, entry.stats, entry.work, entry.check.passed};
    m.verifiable = entry.verifiable;
    m.bound = runs.bound_of(entry);
    m.bound_tolerance = runs.tolerance_of(entry);
    m.host_issue = entry.host_issue;
    if (entry.verifiable) m.digest = entry.check.digest;
    if (m.bound) max_percent = std::max(max_percent, percent_of_bound(*m.bound, m.stats.median_ms));
    result.measurements.push_back(m);
    if (!entry.verifiable) continue;
    if (entry.check.passed) {
      ++verified;
    } else if (all_passed) {
      all_passed = false;
      result.verification = entry.check;  // the first failure
    }
  }
  if (all_passed) result.verification = runs.serial(options.host_memory).check;
  result.variants_verified = verified;

  const auto& pool = runs.pool(IssueOrder::depth_first);
  const PipelineBound bound = *runs.bound_of(pool);
  const double pool_ms = pool.stats.median_ms;
  const StageSums sums = runs.sums();
  const double flops = work.batches * work.flops_per_batch();
  result.bounds = {
      {"h2d_sum_ms", sums.h2d.median_ms},
      {"kernel_sum_ms", sums.kernel.median_ms},
      {"d2h_sum_ms", sums.d2h.median_ms},
      {"pool_kernels_alone_ms", runs.resource(pool.streams, "kernels")->stats.median_ms},
      {"copies_both_ways_ms", bound.both_ways_ms},
      {"host_issue_ms", bound.host_issue_ms},
      {"kernel_path_ms", bound.kernel_path_ms},
      {"h2d_path_ms", bound.h2d_path_ms},
      {"d2h_path_ms", bound.d2h_path_ms},
      {"stream_order_ms", bound.stream_order_ms},
      {"pipeline_bound_ms", bound.bound_ms},
      {"limited_by", to_string(bound.limited_by)},
      {"stream_pool_ms", pool_ms},
      {"bound_over_achieved", bound.bound_ms / pool_ms},
      {"percent_of_bound", percent_of_bound(bound, pool_ms)},
      {"bound_tolerance", runs.tolerance_of(pool)},
      {"max_percent_of_bound", max_percent},
      {"speedup_vs_serial_pageable", runs.serial(HostMemory::pageable).stats.median_ms / pool_ms},
      {"speedup_vs_serial_pinned", runs.serial(HostMemory::pinned).stats.median_ms / pool_ms},
      {"kernel", gemm_name(options.gemm)},
      {"kernel_gflops", gflops(flops, sums.kernel.median_ms)},
      {"pipeline_gflops", gflops(flops, pool_ms)},
      {"regime", to_string(regime_of(bound))},
  };
  if (const auto* engines = runs.engine_streams()) {
    result.bounds["engine_streams_ms"] = engines->stats.median_ms;
    result.bounds["engine_streams_bound_over_achieved"] = runs.bound_of(*engines)->bound_ms / engines->stats.median_ms;
  }
  if (const std::vector<SweepPoint> points = sweep_points(runs); !points.empty()) {
    const SweepVerdict verdict = judge_sweep(points);
    result.bounds["sweep"] = {{"plateau_streams", verdict.plateau_streams},
                              {"best_streams", verdict.best_streams},
                              {"best_ms", verdict.best_ms},
                              {"worse_streams", verdict.worse}};
  }
  return result;
}

void print_pool_result(std::ostream& out, const StageResult& result, const CommonOptions& options,
                       const PoolConfig& config, const PoolMeasurements& runs) {
  const Workload& work = options.work;
  out << result.stage << " on " << result.device.summary() << '\n'
      << describe_workload(work, options.gemm) << "; pool on " << to_string(options.host_memory) << " host memory, "
      << config.streams << " streams; median of " << options.plan.repeats << " interleaved rounds after "
      << options.plan.warmup << " warm-up\n";
  for (const std::string& warning : config.warnings) out << warning << '\n';
  out << '\n';
  // Every variant but the resource runs, which the bound section shows in a table of their own.
  std::vector<Measurement> shown;
  for (const auto& m : result.measurements) {
    if (m.name != "resource_alone") shown.push_back(m);
  }
  print_measurements(out, shown);

  const auto& pool = runs.pool(IssueOrder::depth_first);
  const auto& breadth = runs.pool(IssueOrder::breadth_first);
  const double pool_ms = pool.stats.median_ms;
  const double pageable_ms = runs.serial(HostMemory::pageable).stats.median_ms;
  const double pinned_ms = runs.serial(HostMemory::pinned).stats.median_ms;
  out << "\nstream pool, " << config.streams << " streams, depth-first (the article's loop): " << figure(pool_ms, 2)
      << " ms,\n  " << compare_phrase(pool_ms, pageable_ms) << " serial on pageable memory (" << figure(pageable_ms, 2)
      << " ms) and " << compare_phrase(pool_ms, pinned_ms) << " serial on pinned memory (" << figure(pinned_ms, 2)
      << " ms), same run\n"
      << "  breadth-first issue: " << figure(breadth.stats.median_ms, 2) << " ms, "
      << compare_phrase(breadth.stats.median_ms, pool_ms) << " depth-first\n";
  if (options.host_memory == HostMemory::pageable) out << "  " << pageable_pool_text(pool_ms, pageable_ms) << '\n';

  const StageSums sums = runs.sums();
  const PipelineBound bound = *runs.bound_of(pool);
  out << "\nisolated, on one stream: H2D " << figure(sums.h2d.median_ms, 2) << " ms, kernels "
      << figure(sums.kernel.median_ms, 2) << " ms, D2H " << figure(sums.d2h.median_ms, 2) << " ms\n";
  auto us = [](double ms) { return figure(1000.0 * ms, 1, 2); };
  if (work.batches == 1) {
    out << "one batch's fill and drain: not measured apart with 1 batch (its op alone is the whole sum, and carries\n"
        << "  a timed region's fixed cost), so the bound leaves them out and is loose here: one batch's H2D, kernel\n"
        << "  and D2H can only run one after another, whatever the pool\n";
  } else {
    out << "one batch's fill and drain (each sum less batch 0's op alone, over the other batches, so that a timed\n"
        << "  region's fixed cost stays out; at most the resource alone / batches): H2D " << us(bound.h2d_one_ms)
        << " us, kernel " << us(bound.kernel_one_ms) << " us, D2H " << us(bound.d2h_one_ms) << " us\n";
  }
  out << "each resource alone on the pool's " << pool.streams << (pool.streams == 1 ? " stream" : " streams")
      << ", plus one batch of fill and drain: kernels " << figure(bound.kernel_path_ms, 2) << ", H2D "
      << figure(bound.h2d_path_ms, 2) << ", D2H " << figure(bound.d2h_path_ms, 2) << ", both ways "
      << figure(bound.both_ways_ms, 2) << "; the host's issue " << figure(bound.host_issue_ms, 2) << " ms";
  if (work.batches > 1) {  // with one batch there is no share to chain (see above)
    out << ";\n  the stream order (the busiest stream's " << busiest_stream_batches(work.batches, pool.streams)
        << " batches one after another) " << figure(bound.stream_order_ms, 2) << " ms";
  }
  out << "\npipeline bound " << figure(bound.bound_ms, 2) << " ms, limited by " << to_string(bound.limited_by) << "; "
      << bound_text("the pool", percent_of_bound(bound, pool_ms), runs.tolerance_of(pool)) << '\n';
  Table alone({"streams", "kernels ms", "H2D ms", "D2H ms", "both ways ms"});
  std::vector<int> sizes;
  for (const auto& entry : runs.entries()) {
    if (entry.kind != Kind::resource || std::find(sizes.begin(), sizes.end(), entry.streams) != sizes.end()) continue;
    sizes.push_back(entry.streams);
    auto ms = [&](const char* name) { return fixed(runs.resource(entry.streams, name)->stats.median_ms, 2); };
    alone.add_row({std::to_string(entry.streams), ms("kernels"), ms("h2d"), ms("d2h"), ms("both_ways")});
  }
  out << "what each resource needs alone, on pools of each size (the paths of their bounds):\n";
  alone.print(out);
  if (const std::string wave = partial_wave_text(runs.resource(pool.streams, "kernels")->stats.median_ms,
                                                 sums.kernel.median_ms, pool.streams);
      !wave.empty()) {
    out << wave << '\n';
  }
  // Any variant faster than its own bound by more than the noise: say so, loudly.
  for (const auto& m : result.measurements) {
    if (m.bound && bound_beaten(percent_of_bound(*m.bound, m.stats.median_ms), m.bound_tolerance)) {
      out << bound_text(m.name + " (" + compact_params(m.params) + ")", percent_of_bound(*m.bound, m.stats.median_ms),
                        m.bound_tolerance)
          << '\n';
    }
  }
  if (const auto* engines = runs.engine_streams()) {
    out << engines_text(engines->stats.median_ms, pool_ms, bound.limited_by) << '\n';
  }
  const double flops = work.batches * work.flops_per_batch();
  out << "the " << gemm_name(options.gemm) << " kernels alone: " << figure(gflops(flops, sums.kernel.median_ms), 0, 2)
      << " GFLOP/s; the pool end to end: " << figure(gflops(flops, pool_ms), 0, 2) << " GFLOP/s\n"
      << regime_text(bound) << '\n';

  // The sweep: the article's "more streams is not better".
  print_sweep(out, runs, "pool size sweep (depth-first):");

  const auto& bytes = result.config.at("device_bytes");
  out << "\ndevice memory for A, B, C: slots layout (" << config.streams << " streams) "
      << format_bytes(bytes.at("slots_layout").get<std::uint64_t>()) << ", the article's per-batch layout "
      << format_bytes(bytes.at("per_batch_layout").get<std::uint64_t>()) << "; this run: "
      << to_string(config.device_buffers) << ", " << result.config.at("device_slots").get<int>() << " slot(s), "
      << format_bytes(bytes.at("allocated_per_host_kind").get<std::uint64_t>()) << " per host memory kind\n";
  if (result.config.at("device_slots").get<int>() < work.batches) {
    out << "(the isolated sums share slots, so their copies can't be checked per batch: 'n/a' above)\n";
  }
  out << '\n' << result.verification.message() << ", in " << result.variants_verified << " variants\n";
}

}  // namespace csg::pool
