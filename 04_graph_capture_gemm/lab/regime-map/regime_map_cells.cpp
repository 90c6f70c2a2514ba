#include "04_graph_capture_gemm/lab/regime-map/regime_map.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/errors.hpp"
#include "base/interrupt.hpp"
#include "base/progress.hpp"
#include "base/text.hpp"
#include "base/units.hpp"
#include "04_graph_capture_gemm/lab/graph_steps.hpp"
#include "stage.hpp"
#include "measure/timers.hpp"
#include "report/table.hpp"

namespace csg::graphs {
namespace {

// ---- napkin figures for what measure_rates does not cover --------------------
// From figures measured on one H200 box, rounded up, so the
// estimate errs long.
// A launch or a small copy on a stream costs the host about this much, and
// no operation of a stream takes less on the GPU: an empty kernel's launch is
// 3.4-4.1 us, 300 operations are issued in 0.75-1.1 ms. measure_rates times
// 32 MiB copies and one GEMM, so it can't see this floor of tiny work.
constexpr double kSecondsPerOperation = 4e-6;
// cudaMallocHost of 1 GiB: 0.38-0.48 s; freeing it again is cheaper.
constexpr double kPinnedSecondsPerGiB = 0.5;
// Filling, poisoning and verifying host memory, on the host's cores.
constexpr double kHostBytesPerSecond = 10e9;
// fill_inputs starts the host's threads once per batch (about 16 x 20 us).
constexpr double kFillSecondsPerBatch = 3e-4;
// Capture 0.6 ms + instantiate 1.5 ms for 300 nodes: 7 us a node.
constexpr double kSecondsPerGraphNode = 1e-5;
// Host C is poisoned before the replay's run, the pool's run and the D2H sum's pass of every round.
constexpr int kHostPoisonsPerRound = 3;
// The replay and the pool are verified once each, after their last run.
constexpr int kVerifications = 2;


std::string seconds_text(double seconds) { return fixed(seconds, seconds < 100.0 ? 1 : 0) + " s"; }

Workload cell_work(const MapCell& cell) { return Workload{cell.batches, GemmShape{cell.m, cell.m, cell.m}}; }

std::string cell_title(int index, int count, const MapCell& cell) {
  return "cell " + std::to_string(index) + " of " + std::to_string(count) + ": " + std::to_string(cell.m) +
         "\u00b3 \u00d7 " + plural(cell.batches, "batch");
}

// What check_fits says about the cell's buffers (pinned host memory for every
// batch, the device slots), or nothing when they fit.
std::optional<std::string> memory_problem(const Workload& work, int slots) {
  try {
    check_fits(memory_needs(work, HostMemory::pinned, slots), "the cell is skipped");
  } catch (const ResourceError& error) {
    return std::string(error.what());
  }
  return std::nullopt;
}

// One cell: its own buffers and graph, the four variants in interleaved
// rounds, each GPU variant verified after its last run.
void measure_cell(MapCell& cell, const RepeatPlan& plan, std::uint64_t seed, const RegimeMapSteps& steps) {
  const cudaStream_t origin = (*steps.pool)[0];
  BatchBuffers buffers(cell_work(cell), HostMemory::pinned, device_slots_for(steps.pool_config, cell.batches));
  buffers.fill_inputs(seed);
  const BatchOps ops = steps.ops_for(buffers);
  const GraphExec exec = steps.instantiate(steps.capture(buffers, cell.batches));

  EventTimer timer;
  Millis issued{};  // the host's time to issue the last timed run
  auto poison = [&] { buffers.poison_outputs(origin); };
  std::vector<TimedVariant> variants = {
      {.prepare = poison,
       .run = [&] {
         timer.start(origin);
         const HostTimer host;
         steps.launch(exec);
         issued = host.elapsed();
         return timer.stop();
       },
       .after_last = [&] { cell.graph_check = buffers.verify(seed); },
       .side = [&] { return issued; }},
      {.prepare = poison,
       .run = [&] {
         timer.start(origin);
         const HostTimer host;
         steps.issue_on_streams(ops, cell.batches);
         issued = host.elapsed();
         return timer.stop();
       },
       .after_last = [&] { cell.stream_check = buffers.verify(seed); },
       .side = [&] { return issued; }},
  };
  EventTimer sums_timer;
  const std::vector<TimedVariant> sums = stage_sum_variants(ops, buffers, origin, sums_timer);
  variants.insert(variants.end(), sums.begin(), sums.end());

  const std::vector<Measured> results = measure_rounds(plan, variants);
  cell.graph_replay = results[0].primary;
  cell.graph_issue = results[0].side.value();
  cell.stream_pool = results[1].primary;
  cell.stream_issue = results[1].side.value();
  cell.sums = StageSums{results[2].primary, results[3].primary, results[4].primary};
}

}  // namespace

CellEstimate estimate_cell(const Workload& work, const Rates& rates, const RepeatPlan& plan) {
  const double batches = double(work.batches);
  const double rounds = double(plan.warmup + plan.repeats);
  const WorkSeconds t = work_seconds(work, rates, /*pageable=*/false);
  const double floor = batches * kSecondsPerOperation;
  const double kernels = std::max(t.kernels, floor);
  const double h2d = std::max(t.h2d, floor);
  const double d2h = std::max(t.d2h, floor);
  const double one_stream = kernels + h2d + d2h;  // the three sums, one after the other
  // Overlapped at best, and never before the host has issued the pool's
  // 3 x batches operations; the replay is given the same (it errs long).
  const double pipeline = std::max({kernels, h2d, d2h, 3.0 * floor});

  CellEstimate estimate;
  estimate.timed_seconds = rounds * (2.0 * pipeline + one_stream);
  const double a_bytes = batches * double(work.a_bytes());
  const double c_bytes = batches * double(work.c_bytes());
  const double pinned = (a_bytes + c_bytes + double(work.b_bytes())) / double(kGiB) * kPinnedSecondsPerGiB;
  const double fill = batches * kFillSecondsPerBatch + (a_bytes + double(work.b_bytes())) / kHostBytesPerSecond;
  const double poison = rounds * kHostPoisonsPerRound * c_bytes / kHostBytesPerSecond;
  const double verify = kVerifications * (a_bytes + 2.0 * c_bytes) / kHostBytesPerSecond;  // Freivalds, the digest
  const double graph = 3.0 * batches * kSecondsPerGraphNode;
  estimate.host_seconds = pinned + fill + poison + verify + graph;
  return estimate;
}

std::optional<CellSkip> skip_for(double timed_seconds, int budget_seconds,
                                 const std::optional<std::string>& memory_problem) {
  if (memory_problem) return CellSkip{SkipKind::memory, *memory_problem};
  if (timed_seconds > double(budget_seconds)) {
    return CellSkip{SkipKind::time, "estimated " + seconds_text(timed_seconds) + " of timed runs, over the " +
                                        std::to_string(budget_seconds) + " s per cell (--map-cell-seconds)"};
  }
  return std::nullopt;
}

RegimeMap plan_regime_map(const RegimeMapConfig& config, const CommonOptions& options, const PoolConfig& pool,
                          const std::function<Rates(GemmShape)>& rates_at) {
  RegimeMap map;
  map.config = config;
  map.plan = options.plan;
  map.streams = pool.streams;
  map.device_buffers = to_string(pool.device_buffers);
  progress("measuring this GPU's rates at each of the " + std::to_string(config.sizes.size()) + " map sizes");
  std::map<int, Rates> rates;
  for (const int m : config.sizes) rates[m] = rates_at(GemmShape{m, m, m});
  for (const int m : config.sizes) {
    for (const int batch_count : config.batches) {
      MapCell cell;
      cell.m = m;
      cell.batches = batch_count;
      const Workload work = cell_work(cell);
      cell.estimate = estimate_cell(work, rates.at(m), options.plan);
      cell.skipped = skip_for(cell.estimate.timed_seconds, config.cell_seconds,
                              memory_problem(work, device_slots_for(pool, batch_count)));
      if (!cell.skipped) map.estimated_seconds += cell.estimate.total();
      map.cells.push_back(std::move(cell));
    }
  }
  return map;
}

std::string plan_text(const RegimeMap& map) {
  const auto count = [&map](std::optional<SkipKind> kind) {
    return std::count_if(map.cells.begin(), map.cells.end(), [kind](const MapCell& cell) {
      return kind ? cell.skipped && cell.skipped->kind == *kind : !cell.skipped;
    });
  };
  double timed_seconds = 0.0;
  for (const MapCell& cell : map.cells) {
    if (cell.measured()) timed_seconds += cell.estimate.timed_seconds;
  }
  return "regime map: " + plural(static_cast<long long>(map.config.sizes.size()), "size") + " x " +
         plural(static_cast<long long>(map.config.batches.size()), "batch count") + " = " +
         plural(static_cast<long long>(map.cells.size()), "cell") + ", " + std::to_string(count(std::nullopt)) +
         " to measure, " + std::to_string(count(SkipKind::time)) + " skipped over the " +
         std::to_string(map.config.cell_seconds) + " s per cell, " + std::to_string(count(SkipKind::memory)) +
         " skipped for memory; estimated " + fixed(map.estimated_seconds, 0) + " s (" + fixed(timed_seconds, 0) +
         " s of timed rounds, " + fixed(map.estimated_seconds - timed_seconds, 0) +
         " s on the host: pinning, filling, poisoning, verifying, capturing)";
}

void measure_cells(RegimeMap& map, std::uint64_t seed, const RegimeMapSteps& steps) {
  const int count = static_cast<int>(map.cells.size());
  int index = 0;
  for (MapCell& cell : map.cells) {
    ++index;
    const std::string title = cell_title(index, count, cell);
    throw_if_interrupted("the regime map (" + title + ")");
    if (cell.skipped) {
      progress(title + ": skipped (" + cell.skipped->reason + ")");
      continue;
    }
    progress(title + ", about " + fixed(cell.estimate.total(), 1) + " s");
    measure_cell(cell, map.plan, seed, steps);
  }
}

RegimeMap measure_regime_map(const RegimeMapConfig& config, const CommonOptions& options,
                             const RegimeMapSteps& steps) {
  RegimeMap map = plan_regime_map(config, options, steps.pool_config, steps.rates);
  measure_cells(map, options.seed, steps);
  return map;
}

RegimeMapSteps regime_map_steps(const StreamPool& pool, const PoolConfig& pool_config, const Gemm& gemm) {
  RegimeMapSteps steps;
  steps.pool = &pool;
  steps.pool_config = pool_config;
  steps.ops_for = [&gemm](BatchBuffers& b) { return batch_ops(b, gemm); };
  steps.capture = [&pool, &gemm](BatchBuffers& b, int batches) {
    return capture_batches(batch_ops(b, gemm), pool, batches);
  };
  steps.instantiate = instantiate;
  steps.launch = [&pool](const GraphExec& exec) { launch(exec, pool); };
  steps.issue_on_streams = [&pool](const BatchOps& ops, int batches) { issue_on_streams(ops, pool, batches); };
  steps.rates = [&gemm](GemmShape shape) { return measure_rates(gemm, shape); };
  return steps;
}

}  // namespace csg::graphs
