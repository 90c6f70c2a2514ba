#include "report.hpp"

#include "conclusions.hpp"
#include "experiment/lab.hpp"

namespace csg::pool {
namespace {

using Kind = PoolMeasurements::Kind;

std::string microseconds(double ms) { return figure(1000.0 * ms, 1, 2); }

}  // namespace

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

std::string percent_of_bound_text(const PoolMeasurements& runs, const PoolMeasurements::Entry& entry) {
  const std::optional<PipelineBound> own = runs.bound_of(entry);
  return own ? fixed(percent_of_bound(*own, entry.stats.median_ms), 1) : "-";
}

std::string limited_by_text(const PoolMeasurements& runs, const PoolMeasurements::Entry& entry) {
  const std::optional<PipelineBound> own = runs.bound_of(entry);
  return own ? std::string(to_string(own->limited_by)) : "-";
}

void add_sweep(Report& report, const PoolMeasurements& runs, const std::string& heading, const char* plateau_id) {
  const std::vector<const PoolMeasurements::Entry*> sweep = sweep_entries(runs);
  if (sweep.empty()) return;
  const double first_ms = sweep.front()->stats.median_ms;
  using Entry = const PoolMeasurements::Entry*;
  report.out() << '\n' << heading << '\n';
  report.table(table_of<Entry>(
      {{"streams", [](Entry e) { return std::to_string(e->streams); }},
       {"median ms", [](Entry e) { return fixed(e->stats.median_ms, 2); }},
       {"vs " + plural(sweep.front()->streams, "stream"),
        [first_ms](Entry e) { return fixed(first_ms / e->stats.median_ms, 2) + "x"; }},
       {"host issue ms", [](Entry e) { return e->host_issue ? fixed(e->host_issue->median_ms, 2) : "-"; }},
       {"% of bound", [&runs](Entry e) { return percent_of_bound_text(runs, *e); }},
       {"limited by", [&runs](Entry e) { return limited_by_text(runs, *e); }},
       {"verified", [](Entry e) { return std::string(e->check.passed ? "yes" : "NO"); }}},
      sweep));
  report.verdict(plateau_verdict(plateau_id, sweep_points(runs)));
  const auto connections = max_connections_env();
  const int queues = connections.value_or(8);
  if (std::any_of(sweep.begin(), sweep.end(), [queues](Entry e) { return e->streams > queues; })) {
    report.out() << "CUDA_DEVICE_MAX_CONNECTIONS: "
                 << (connections ? std::to_string(*connections) : std::string("unset (driver default 8)"))
                 << "; pools larger than that share hardware queues, and depth-first issue can then make a stream's\n"
                 << "H2D wait behind another stream's kernel (a false dependency); breadth-first issue avoids most "
                    "of it.\n";
  }
}

StageResult measurements_result(const std::string& stage, const DeviceInfo& device, nlohmann::json config,
                                const PoolMeasurements& runs) {
  StageResult result;
  result.stage = stage;
  result.device = device;
  result.config = std::move(config);
  bool all_passed = true;
  int verified = 0;
  const VerifyResult* passing = nullptr;  // the serial run's check where there is one, else the first variant's
  // The host memory kind the run's config names: its serial run on that kind gives the verification line.
  const std::string memory = result.config.value("host_memory", "");
  for (const auto& entry : runs.entries()) {
    result.measurements.push_back({.name = entry.name, .params = entry.params, .stats = entry.stats, .work = entry.work,
                                   .verified = entry.check.passed, .verifiable = entry.verifiable,
                                   .bound = runs.bound_of(entry), .bound_tolerance = runs.tolerance_of(entry),
                                   .host_issue = entry.host_issue,
                                   .digest = entry.verifiable ? entry.check.digest : std::nullopt});
    if (!entry.verifiable) continue;
    if (passing == nullptr || (entry.kind == Kind::serial && entry.params.at("host_memory") == memory)) {
      passing = &entry.check;
    }
    if (entry.check.passed) {
      ++verified;
    } else if (all_passed) {
      all_passed = false;
      result.verification = entry.check;  // the first failure
    }
  }
  if (all_passed && passing != nullptr) result.verification = *passing;
  result.variants_verified = verified;
  return result;
}

StageResult pool_result(const std::string& stage, const DeviceInfo& device, const CommonOptions& options,
                        const PoolConfig& config, int device_slots, const PoolMeasurements& runs) {
  const Workload& work = options.work;
  const std::uint64_t pair_bytes = work.a_bytes() + work.c_bytes();
  nlohmann::json config_doc = config_json(options);
  config_doc["streams"] = config.streams;
  config_doc["streams_sweep"] = config.sweep;
  config_doc["device_buffers"] = to_string(config.device_buffers);
  config_doc["device_slots"] = device_slots;
  config_doc["device_bytes"] = {
      {"allocated_per_host_kind", std::uint64_t(device_slots) * pair_bytes + work.b_bytes()},
      {"slots_layout", std::uint64_t(config.streams) * pair_bytes + work.b_bytes()},
      {"per_batch_layout", std::uint64_t(work.batches) * pair_bytes + work.b_bytes()},
  };
  const auto connections = max_connections_env();
  config_doc["cuda_device_max_connections"] =
      connections ? nlohmann::json(*connections) : nlohmann::json("unset (driver default 8)");
  StageResult result = measurements_result(stage, device, std::move(config_doc), runs);

  const PoolMeasurements::Entry* pool = runs.find_pool(IssueOrder::depth_first);
  const std::optional<PipelineBound> bound = pool ? runs.bound_of(*pool) : std::nullopt;
  if (!bound) return result;  // no main pool with its resource runs: no bound to report
  double max_percent = 0.0;
  double max_tolerance = 0.0;  // the tolerance of the variant that came closest to (or beyond) its bound
  for (const Measurement& m : result.measurements) {
    const double percent = m.bound ? percent_of_bound(*m.bound, m.stats.median_ms) : 0.0;
    if (percent > max_percent) max_percent = percent, max_tolerance = m.bound_tolerance;
  }
  const double pool_ms = pool->stats.median_ms;
  const StageSums sums = runs.sums();
  const double flops = work.batches * work.flops_per_batch();
  result.bounds = {
      {"h2d_sum_ms", sums.h2d.median_ms},
      {"kernel_sum_ms", sums.kernel.median_ms},
      {"d2h_sum_ms", sums.d2h.median_ms},
      {"pool_kernels_alone_ms", runs.resource(pool->streams, "kernels")->stats.median_ms},
      {"copies_both_ways_ms", bound->both_ways_ms},
      {"host_issue_ms", bound->host_issue_ms},
      {"kernel_path_ms", bound->kernel_path_ms},
      {"h2d_path_ms", bound->h2d_path_ms},
      {"d2h_path_ms", bound->d2h_path_ms},
      {"stream_order_ms", bound->stream_order_ms},
      {"busiest_stream_ms", bound->busiest_stream_ms},
      {"pipeline_bound_ms", bound->bound_ms},
      {"limited_by", to_string(bound->limited_by)},
      {"stream_pool_ms", pool_ms},
      {"bound_over_achieved", bound->bound_ms / pool_ms},
      {"percent_of_bound", percent_of_bound(*bound, pool_ms)},
      {"bound_tolerance", runs.tolerance_of(*pool)},
      {"max_percent_of_bound", max_percent},
      {"max_bound_tolerance", max_tolerance},
      {"kernel", gemm_name(options.gemm)},
      {"kernel_gflops", gflops(flops, sums.kernel.median_ms)},
      {"pipeline_gflops", gflops(flops, pool_ms)},
      {"regime", to_string(regime_of(*bound))},
  };
  for (const HostMemory kind : {HostMemory::pageable, HostMemory::pinned}) {
    if (const PoolMeasurements::Entry* serial = runs.find_serial(kind)) {
      result.bounds["speedup_vs_serial_" + std::string(to_string(kind))] = serial->stats.median_ms / pool_ms;
    }
  }
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

void add_pool_header(Report& report, const CommonOptions& options, const PoolConfig& config) {
  std::ostream& out = report.out();
  out << describe_workload(options.work, options.gemm) << "; pool on " << to_string(options.host_memory)
      << " host memory, " << plural(config.streams, "stream") << "; median of "
      << plural(options.plan.repeats, "interleaved round") << " after " << options.plan.warmup << " warm-up\n";
  for (const std::string& warning : config.warnings) out << warning << '\n';
  out << '\n';
}

void add_variants(Report& report) {
  std::vector<Measurement> shown;
  for (const auto& m : report.result.measurements) {
    if (m.name != "resource_alone") shown.push_back(m);
  }
  print_measurements(report.out(), shown);
}

void add_pool_against_serial(Report& report, const CommonOptions& options, const PoolConfig& config,
                             const PoolMeasurements& runs) {
  const double pool_ms = runs.pool(IssueOrder::depth_first).stats.median_ms;
  report.out() << "\nstream pool, " << plural(config.streams, "stream") << ", depth-first (the article's loop): "
               << figure(pool_ms, 2) << " ms\n";
  for (const HostMemory kind : {HostMemory::pageable, HostMemory::pinned}) {
    const std::string memory(to_string(kind));
    const double serial_ms = runs.serial(kind).stats.median_ms;
    report.verdict(comparison_verdict("pool.vs_serial_" + memory, pool_ms, serial_ms,
                                      "the pool: " + compare_phrase(pool_ms, serial_ms) + " serial on " + memory +
                                          " memory (" + figure(serial_ms, 2) + " ms), same run"));
  }
  if (const PoolMeasurements::Entry* breadth = runs.find_pool(IssueOrder::breadth_first)) {
    const double breadth_ms = breadth->stats.median_ms;
    report.verdict(comparison_verdict("order.breadth_first", breadth_ms, pool_ms,
                                      "breadth-first issue: " + figure(breadth_ms, 2) + " ms, " +
                                          compare_phrase(breadth_ms, pool_ms) + " depth-first"));
  }
  if (options.host_memory == HostMemory::pageable) {
    report.verdict(pageable_pool_verdict(pool_ms, runs.serial(HostMemory::pageable).stats.median_ms));
  }
}

void add_main_bound(Report& report, const PoolMeasurements& runs) {
  const PoolMeasurements::Entry* pool = runs.find_pool(IssueOrder::depth_first);
  const std::optional<PipelineBound> bound = pool ? runs.bound_of(*pool) : std::nullopt;
  if (!bound) return;
  report.verdict(bound_verdict("pool.bound", "the " + std::to_string(pool->streams) + "-stream pool",
                               pool->stats.median_ms, *bound, runs.tolerance_of(*pool)));
}

void add_variant_bounds(Report& report, const PoolMeasurements& runs,
                        const std::function<bool(const PoolMeasurements::Entry&)>& which, bool loose) {
  const PoolMeasurements::Entry* main = runs.find_pool(IssueOrder::depth_first);
  for (const PoolMeasurements::Entry& entry : runs.entries()) {
    const std::optional<PipelineBound> bound = runs.bound_of(entry);
    if (&entry == main || !bound || !which(entry)) continue;
    const std::string variant = entry.kind == PoolMeasurements::Kind::pool_sweep
                                    ? "at " + plural(entry.streams, "stream") + " the pool"
                                    : entry.name + " (" + compact_params(entry.params) + ")";
    Verdict verdict = bound_verdict("pool.variant_bound", variant, entry.stats.median_ms, *bound, runs.tolerance_of(entry));
    if (verdict.outcome == "beaten" || (loose && verdict.outcome == "loose")) report.verdict(std::move(verdict));
  }
}

void add_pool_bound(Report& report, const Workload& work, const PoolMeasurements& runs) {
  std::ostream& out = report.out();
  const auto& pool = runs.pool(IssueOrder::depth_first);
  const StageSums sums = runs.sums();
  const PipelineBound bound = *runs.bound_of(pool);
  out << "\nisolated, on one stream: H2D " << figure(sums.h2d.median_ms, 2) << " ms, kernels "
      << figure(sums.kernel.median_ms, 2) << " ms, D2H " << figure(sums.d2h.median_ms, 2) << " ms\n";
  if (work.batches == 1) {
    out << "one batch's fill and drain: not measured apart with 1 batch (its op alone is the whole sum, and carries\n"
        << "  a timed region's fixed cost), so the bound leaves them out and is loose here: one batch's H2D, kernel\n"
        << "  and D2H can only run one after another, whatever the pool\n";
  } else {
    out << "one batch's fill and drain (each sum less batch 0's op alone, over the other batches, so that a timed\n"
        << "  region's fixed cost stays out; at most the resource alone / batches): H2D " << microseconds(bound.h2d_one_ms)
        << " us, kernel " << microseconds(bound.kernel_one_ms) << " us, D2H " << microseconds(bound.d2h_one_ms)
        << " us\n";
  }
  const long long busiest = busiest_stream_batches(work.batches, pool.streams);
  out << "each resource alone on the pool's " << plural(pool.streams, "stream")
      << ", plus one batch of fill and drain: kernels " << figure(bound.kernel_path_ms, 2) << ", H2D "
      << figure(bound.h2d_path_ms, 2) << ", D2H " << figure(bound.d2h_path_ms, 2) << ", both ways "
      << figure(bound.both_ways_ms, 2) << "; the host's issue " << figure(bound.host_issue_ms, 2) << " ms";
  if (work.batches > 1) {  // with one batch there is no share to chain (see above)
    out << ";\n  the stream order (the busiest stream's " << plural(busiest, "batch") << " one after another) "
        << figure(bound.stream_order_ms, 2) << " ms";
  }
  if (bound.busiest_stream_ms > 0.0) {
    out << ";\n  the busiest stream's " << plural(busiest, "batch")
        << " alone on one stream, as measured: " << figure(bound.busiest_stream_ms, 2) << " ms";
  }
  out << "\npipeline bound " << figure(bound.bound_ms, 2) << " ms, limited by " << to_string(bound.limited_by) << '\n';
  add_main_bound(report, runs);
  std::vector<int> sizes;
  for (const auto& entry : runs.entries()) {
    if (entry.kind == Kind::resource && std::find(sizes.begin(), sizes.end(), entry.streams) == sizes.end()) {
      sizes.push_back(entry.streams);
    }
  }
  auto alone = [&runs](const char* resource) {
    return [&runs, resource](int streams) {
      const PoolMeasurements::Entry* entry = runs.resource(streams, resource);
      return entry ? fixed(entry->stats.median_ms, 2) : "-";
    };
  };
  out << "what each resource needs alone, on pools of each size (the paths of their bounds):\n";
  report.table(table_of<int>({{"streams", [](int streams) { return std::to_string(streams); }},
                              {"kernels ms", alone("kernels")},
                              {"H2D ms", alone("h2d")},
                              {"D2H ms", alone("d2h")},
                              {"both ways ms", alone("both_ways")},
                              {"busiest stream ms", alone("busiest_stream")}},
                             sizes));
  if (const PoolMeasurements::Entry* kernels = runs.resource(pool.streams, "kernels")) {
    if (auto wave = partial_wave_verdict(kernels->stats.median_ms, sums.kernel.median_ms, pool.streams)) {
      report.verdict(std::move(*wave));
    }
  }
  add_variant_bounds(report, runs, [](const PoolMeasurements::Entry&) { return true; }, /*loose=*/false);
}

void add_engine_streams(Report& report, const PoolMeasurements& runs) {
  const auto* engines = runs.engine_streams();
  if (engines == nullptr) return;
  const auto& pool = runs.pool(IssueOrder::depth_first);
  const std::optional<PipelineBound> bound = runs.bound_of(pool);
  report.verdict(engines_verdict(engines->stats.median_ms, pool.stats.median_ms,
                                 bound ? bound->limited_by : BoundPath::kernels));
}

void add_regime(Report& report, const CommonOptions& options, const PoolMeasurements& runs) {
  const Workload& work = options.work;
  const auto& pool = runs.pool(IssueOrder::depth_first);
  const double flops = work.batches * work.flops_per_batch();
  report.out() << "the " << gemm_name(options.gemm) << " kernels alone: "
               << figure(gflops(flops, runs.sums().kernel.median_ms), 0, 2)
               << " GFLOP/s; the pool end to end: " << figure(gflops(flops, pool.stats.median_ms), 0, 2)
               << " GFLOP/s\n";
  if (const std::optional<PipelineBound> bound = runs.bound_of(pool)) report.verdict(regime_verdict(*bound));
}

void add_device_memory(Report& report, const PoolConfig& config, int batches) {
  const nlohmann::json& doc = report.result.config;
  const auto& bytes = doc.at("device_bytes");
  const int slots = doc.at("device_slots").get<int>();
  report.out() << "\ndevice memory for A, B, C: slots layout (" << plural(config.streams, "stream") << ") "
               << format_bytes(bytes.at("slots_layout").get<std::uint64_t>()) << ", the article's per-batch layout "
               << format_bytes(bytes.at("per_batch_layout").get<std::uint64_t>()) << "; this run: "
               << to_string(config.device_buffers) << ", " << plural(slots, "slot") << ", "
               << format_bytes(bytes.at("allocated_per_host_kind").get<std::uint64_t>()) << " per host memory kind\n";
  if (slots < batches) {
    report.out() << "(the isolated sums share slots, so their copies can't be checked per batch: 'n/a' above)\n";
  }
}

}  // namespace csg::pool
