#include "measurements.hpp"

#include "experiment/lab.hpp"

namespace csg::pool {
namespace {

std::string memory_name(HostMemory kind) { return std::string(to_string(kind)); }

}  // namespace

void PoolMeasurements::add_whole_workload(Entry entry, BatchBuffers& buffers, cudaStream_t poison_stream,
                                          std::function<Millis()> run) {
  const std::size_t index = entries_.size();
  entry.params["host_memory"] = memory_name(buffers.host_kind());
  entry.work = Work{double(work_.batches) * double(work_.a_bytes() + work_.c_bytes()),
                    double(work_.batches) * work_.flops_per_batch()};
  entry.variant = TimedVariant{
      .prepare = [&buffers, poison_stream] { buffers.poison_outputs(poison_stream); },
      .run = std::move(run),
      .after_last = [this, index, &buffers] { entries_[index].check = buffers.verify(seed_); },
  };
  entries_.push_back(std::move(entry));
}

void PoolMeasurements::add_serial(BatchBuffers& buffers, std::function<Millis()> run) {
  gemm_->prepare(nullptr);  // cuBLAS: the handle exists before any run, timed or not
  add_whole_workload({.kind = Kind::serial, .name = "serial"}, buffers, nullptr, std::move(run));
}

PoolMeasurements PoolMeasurements::measured(const Workload& work, std::vector<Entry> entries) {
  PoolMeasurements runs(work, 0, nullptr);
  runs.entries_ = std::move(entries);
  return runs;
}

PoolMeasurements PoolMeasurements::measured_only() const {
  std::vector<Entry> entries = entries_;
  for (Entry& entry : entries) {
    entry.variant = TimedVariant{};
    entry.pool = nullptr;
  }
  return measured(work_, std::move(entries));
}

void PoolMeasurements::add_pool(BatchBuffers& buffers, const StreamPool& pool, IssueOrder order,
                                std::function<Millis()> run, std::function<Millis()> issued, bool sweep) {
  for (int i = 0; i < pool.size(); ++i) gemm_->prepare(pool[i]);
  add_whole_workload({.kind = sweep ? Kind::pool_sweep : Kind::pool,
                      .name = "stream_pool",
                      .params = {{"streams", pool.size()}, {"order", std::string(to_string(order))}, {"sweep", sweep}},
                      .streams = pool.size(),
                      .order = order,
                      .pool = &pool},
                     buffers, pool[0], std::move(run));
  entries_.back().variant.side = std::move(issued);
}

void PoolMeasurements::add_engine_streams(BatchBuffers& buffers, const StreamPool& streams,
                                          std::function<Millis()> run, std::function<Millis()> issued) {
  gemm_->prepare(streams[1]);  // the compute stream: the only one that runs GEMMs
  add_whole_workload({.kind = Kind::engines,
                      .name = "engine_streams",
                      .params = {{"streams", 3}, {"order", "one stream per engine"}},
                      .streams = 3},
                     buffers, streams[0], std::move(run));
  entries_.back().variant.side = std::move(issued);
}

void PoolMeasurements::add_resource_runs(const BatchOps& ops, const PoolRun& pool_run) {
  static constexpr const char* kResources[] = {"kernels", "h2d", "d2h", "both_ways"};
  const int batches = work_.batches;
  const Work kernels{0.0, double(batches) * work_.flops_per_batch()};
  const Work both_ways{double(batches) * double(work_.a_bytes() + work_.c_bytes()), 0.0};
  const Work works[] = {kernels,
                        {double(batches) * double(work_.a_bytes()), 0.0},
                        {double(batches) * double(work_.c_bytes()), 0.0},
                        both_ways};
  std::vector<std::pair<int, const StreamPool*>> pools;  // the first pool variant of each size, in order
  for (const Entry& e : entries_) {
    const bool seen = std::any_of(pools.begin(), pools.end(), [&e](const auto& p) { return p.first == e.streams; });
    if ((e.kind == Kind::pool || e.kind == Kind::pool_sweep) && !seen) pools.emplace_back(e.streams, e.pool);
  }
  auto resource_entry = [](int streams, const char* resource, const Work& work, TimedVariant variant) {
    return Entry{.kind = Kind::resource,
                 .name = "resource_alone",
                 .params = {{"streams", streams}, {"resource", resource}},
                 .work = work,
                 .variant = std::move(variant),
                 .verifiable = false,
                 .streams = streams,
                 .resource = resource};
  };
  for (const auto& [streams, pool_of_size] : pools) {
    if (pool_of_size == nullptr) throw std::logic_error("add_resource_runs: a pool variant without its pool");
    const StreamPool& pool = *pool_of_size;
    std::vector<TimedVariant> runs = resource_variants(
        ops, [&pool, pool_run, batches](const BatchOps& subset) { return pool_run(pool, subset, batches); });
    for (std::size_t r = 0; r < runs.size(); ++r) {
      entries_.push_back(resource_entry(streams, kResources[r], works[r], std::move(runs[r])));
    }
    // Stream 0 runs batches 0, S, 2S, ...: ceil(B/S) of them. They run alone
    // on that same stream, through the pool's own loop (its fork and join,
    // the other batches' calls left out): on another stream, at tens of us,
    // the same batches ran up to 16% slower than the whole pool did here.
    const int busiest = static_cast<int>(busiest_stream_batches(batches, streams));
    const double share = double(busiest) / double(batches);
    const BatchOps busiest_ops = stream_zero_ops(ops, streams);
    TimedVariant alone;
    alone.run = [&pool, busiest_ops, pool_run, batches] { return pool_run(pool, busiest_ops, batches); };
    entries_.push_back(resource_entry(streams, "busiest_stream", {share * both_ways.bytes, share * kernels.flops},
                                      std::move(alone)));
  }
}

void PoolMeasurements::add_bounds(BatchBuffers& buffers, const BatchOps& ops, cudaStream_t one, cudaStream_t two,
                                  EventTimer& timer) {
  gemm_->prepare(one);  // the kernel pass
  // With shared device slots the passes overwrite each other's slots, so what
  // the D2H pass brings back is not every batch's C: nothing to verify then.
  const bool verifiable = buffers.device_slots() == work_.batches;
  const double h2d_bytes = double(work_.batches) * double(work_.a_bytes());
  const double d2h_bytes = double(work_.batches) * double(work_.c_bytes());
  const nlohmann::json memory = {{"host_memory", memory_name(buffers.host_kind())}};
  std::vector<TimedVariant> passes = stage_sum_variants(ops, buffers, one, timer);
  passes.push_back(copies_both_ways_variant(ops, work_, one, two, timer));
  const char* names[] = {"h2d_sum", "kernel_sum", "d2h_sum", "copies_both_ways"};
  const Work works[] = {{h2d_bytes, 0.0}, {0.0, double(work_.batches) * work_.flops_per_batch()}, {d2h_bytes, 0.0},
                        {h2d_bytes + d2h_bytes, 0.0}};
  // One row of the bound's runs: the H2D, kernel and D2H kinds name their host memory, the kernels none.
  auto bound_entry = [&](const char* name, bool kernels, const Work& work, bool checked, TimedVariant variant) {
    return Entry{.kind = Kind::bound,
                 .name = name,
                 .params = kernels ? nlohmann::json::object() : memory,
                 .work = work,
                 .variant = std::move(variant),
                 .verifiable = checked};
  };
  for (std::size_t i = 0; i < passes.size(); ++i) {
    const std::size_t index = entries_.size();
    Entry entry = bound_entry(names[i], i == 1, works[i], verifiable, std::move(passes[i]));
    // After the D2H pass host C holds what the kernel pass computed; the
    // both-ways pass copies the same device C back again.
    if (verifiable && (i == 2 || i == 3)) {
      auto poison = entry.variant.prepare;
      entry.variant.prepare = [&buffers, poison] {
        if (poison) poison();
        buffers.poison_host_outputs();
      };
      entry.variant.after_last = [this, index, &buffers] { entries_[index].check = buffers.verify(seed_); };
    }
    entries_.push_back(std::move(entry));
  }
  // Batch 0's op of each kind alone: the bound takes the timing's fixed cost
  // out of the fill and drain with these (pipeline_bound.hpp). They check nothing.
  std::vector<TimedVariant> firsts = first_op_variants(ops, one, timer);
  const char* first_names[] = {"h2d_first_op", "kernel_first_op", "d2h_first_op"};
  const Work first_works[] = {{double(work_.a_bytes()), 0.0}, {0.0, work_.flops_per_batch()}, {double(work_.c_bytes()), 0.0}};
  for (std::size_t i = 0; i < firsts.size(); ++i) {
    entries_.push_back(bound_entry(first_names[i], i == 1, first_works[i], false, std::move(firsts[i])));
  }
}

void PoolMeasurements::measure(const RepeatPlan& plan) {
  std::vector<TimedVariant> variants;
  variants.reserve(entries_.size());
  for (const Entry& entry : entries_) variants.push_back(entry.variant);
  std::vector<Measured> results = measure_rounds(plan, variants);
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    entries_[i].stats = std::move(results[i].primary);
    entries_[i].host_issue = std::move(results[i].side);
  }
  // The H2D and kernel passes are checked through the D2H pass that follows them.
  for (Entry& entry : entries_) {
    if (entry.kind == Kind::bound && entry.verifiable && !entry.check.passed && entry.check.batches_checked == 0) {
      entry.check = find(Kind::bound, "d2h_sum").check;
    }
  }
}

const PoolMeasurements::Entry& PoolMeasurements::find(Kind kind, const std::string& name) const {
  if (const Entry* entry = first([&](const Entry& e) { return e.kind == kind && e.name == name; })) return *entry;
  throw std::logic_error("PoolMeasurements: no measurement " + name);
}

const PoolMeasurements::Entry& PoolMeasurements::serial(HostMemory kind) const {
  if (const Entry* entry = find_serial(kind)) return *entry;
  throw std::logic_error("PoolMeasurements: no serial measurement for " + memory_name(kind));
}

const PoolMeasurements::Entry& PoolMeasurements::pool(IssueOrder order) const {
  if (const Entry* entry = find_pool(order)) return *entry;
  throw std::logic_error("PoolMeasurements: no pool measurement");
}

const PoolMeasurements::Entry* PoolMeasurements::find_serial(HostMemory kind) const {
  return first(
      [&](const Entry& e) { return e.kind == Kind::serial && e.params.at("host_memory") == memory_name(kind); });
}

const PoolMeasurements::Entry* PoolMeasurements::find_pool(IssueOrder order) const {
  return first([&](const Entry& e) { return e.kind == Kind::pool && e.order == order; });
}

const PoolMeasurements::Entry* PoolMeasurements::engine_streams() const {
  return first([](const Entry& e) { return e.kind == Kind::engines; });
}

StageSums PoolMeasurements::sums() const {
  StageSums sums{find(Kind::bound, "h2d_sum").stats, find(Kind::bound, "kernel_sum").stats,
                 find(Kind::bound, "d2h_sum").stats};
  sums.h2d_first = find(Kind::bound, "h2d_first_op").stats;
  sums.kernel_first = find(Kind::bound, "kernel_first_op").stats;
  sums.d2h_first = find(Kind::bound, "d2h_first_op").stats;
  return sums;
}

const PoolMeasurements::Entry* PoolMeasurements::resource(int streams, const std::string& name) const {
  return first([&](const Entry& e) { return e.kind == Kind::resource && e.streams == streams && e.resource == name; });
}

std::optional<PipelineBound> PoolMeasurements::bound_of(const Entry& entry) const {
  const double issue = entry.host_issue ? entry.host_issue->median_ms : 0.0;
  ResourceTimes alone;
  if (entry.kind == Kind::pool || entry.kind == Kind::pool_sweep) {
    const Entry* kernels = resource(entry.streams, "kernels");
    const Entry* h2d = resource(entry.streams, "h2d");
    const Entry* d2h = resource(entry.streams, "d2h");
    const Entry* both = resource(entry.streams, "both_ways");
    if (!kernels || !h2d || !d2h || !both) return std::nullopt;
    alone = {kernels->stats.median_ms, h2d->stats.median_ms, d2h->stats.median_ms, both->stats.median_ms, issue};
    if (const Entry* busiest = resource(entry.streams, "busiest_stream")) alone.busiest_stream_ms = busiest->stats.median_ms;
  } else if (entry.kind == Kind::engines) {
    // One stream per engine: the kernels on one stream, each direction on one
    // stream, and both directions at once on two.
    const StageSums s = sums();
    alone = {s.kernel.median_ms, s.h2d.median_ms, s.d2h.median_ms,
             find(Kind::bound, "copies_both_ways").stats.median_ms, issue};
  } else {
    return std::nullopt;
  }
  // The pool runs batch i on stream i % streams; one stream per engine
  // spreads each batch over three streams, so it has no stream order.
  const int order_streams = entry.kind == Kind::engines ? 0 : entry.streams;
  return pipeline_bound(alone, sums().medians(), work_.batches, order_streams);
}

double PoolMeasurements::tolerance_of(const Entry& entry) const {
  const std::optional<PipelineBound> bound = bound_of(entry);
  if (!bound) return 0.0;
  const Summary* path = nullptr;
  StageSums all_sums;
  if (bound->limited_by == BoundPath::host_issue) {
    path = entry.host_issue ? &*entry.host_issue : nullptr;
  } else if (bound->limited_by == BoundPath::busiest_stream) {
    path = &resource(entry.streams, "busiest_stream")->stats;
  } else if (bound->limited_by == BoundPath::stream_order) {
    all_sums = sums();
    path = &all_sums.noisiest();
  } else {
    // The resource path that limits it (kernels, h2d, d2h or both_ways, in BoundPath's order): one stream per
    // engine's is a one-stream sum, a pool's its resource run.
    const std::string_view sum = name_of(bound->limited_by, {"kernel_sum", "h2d_sum", "d2h_sum", "copies_both_ways"});
    const std::string_view run = name_of(bound->limited_by, {"kernels", "h2d", "d2h", "both_ways"});
    path = entry.kind == Kind::engines ? &find(Kind::bound, std::string(sum)).stats
                                       : &resource(entry.streams, std::string(run))->stats;
  }
  return bound_tolerance(entry.stats.median_ms, entry.stats.min_ms, path ? path->median_ms : 0.0,
                         path ? path->min_ms : 0.0);
}

}  // namespace csg::pool
