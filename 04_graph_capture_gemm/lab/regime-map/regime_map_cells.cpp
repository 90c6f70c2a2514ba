#include "04_graph_capture_gemm/lab/regime-map/regime_map_cells.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/errors.hpp"
#include "base/interrupt.hpp"
#include "base/progress.hpp"
#include "base/text.hpp"
#include "04_graph_capture_gemm/lab/graph_steps.hpp"
#include "stage.hpp"
#include "measure/timers.hpp"
#include "report/table.hpp"

namespace csg::graphs {
namespace {

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

RegimeMap measure_regime_map(const RegimeMapConfig& config, const CommonOptions& options,
                             const RegimeMapSteps& steps) {
  RegimeMap map;
  map.config = config;
  map.plan = options.plan;
  map.streams = steps.pool->size();
  map.device_buffers = to_string(steps.pool_config.device_buffers);

  progress("measuring this GPU's rates at each of the " + std::to_string(config.sizes.size()) + " map sizes");
  std::map<int, Rates> rates;
  for (const int m : config.sizes) rates[m] = steps.rates(GemmShape{m, m, m});

  // Plan every cell before measuring any: which run, which are skipped and why.
  double timed_seconds = 0.0;
  double host_seconds = 0.0;
  int over_budget = 0;
  int no_memory = 0;
  for (const int m : config.sizes) {
    for (const int batch_count : config.batches) {
      MapCell cell;
      cell.m = m;
      cell.batches = batch_count;
      const Workload work = cell_work(cell);
      cell.estimate = estimate_cell(work, rates.at(m), options.plan);
      cell.skipped = skip_for(cell.estimate.timed_seconds, config.cell_seconds,
                              memory_problem(work, device_slots_for(steps.pool_config, batch_count)));
      if (!cell.skipped) {
        timed_seconds += cell.estimate.timed_seconds;
        host_seconds += cell.estimate.host_seconds;
      } else {
        ++(cell.skipped->kind == SkipKind::memory ? no_memory : over_budget);
      }
      map.cells.push_back(std::move(cell));
    }
  }
  map.estimated_seconds = timed_seconds + host_seconds;
  const int count = static_cast<int>(map.cells.size());
  const int to_measure = count - over_budget - no_memory;
  progress("regime map: " + plural(static_cast<long long>(config.sizes.size()), "size") + " x " +
           plural(static_cast<long long>(config.batches.size()), "batch count") + " = " + plural(count, "cell") +
           ", " + std::to_string(to_measure) + " to measure, " +
           std::to_string(over_budget) + " skipped over the " + std::to_string(config.cell_seconds) +
           " s per cell, " + std::to_string(no_memory) + " skipped for memory; estimated " +
           fixed(map.estimated_seconds, 0) + " s (" + fixed(timed_seconds, 0) + " s of timed rounds, " +
           fixed(host_seconds, 0) + " s on the host: pinning, filling, poisoning, verifying, capturing)");
  if (map.estimated_seconds > 60.0 * options.max_minutes) {
    check_estimate(map.estimated_seconds, options.max_minutes,
                   "the regime map's " + plural(to_measure, "cell"));  // refuses: UsageError
  }

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
    measure_cell(cell, options.plan, options.seed, steps);
  }
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
