#include "options.hpp"

#include <algorithm>

#include "base/errors.hpp"
#include "base/output_file.hpp"
#include "workload/gemm.hpp"
#include "stage.hpp"

namespace csg::graphs {
namespace {

constexpr int kDefaultTinyCount = 1000;  // tiny operations per run: enough that per-op costs dominate
constexpr int kMaxTinyCount = 10000;
constexpr int kDefaultTinySize = 64;  // 64³ GEMM: 0.5 MFLOP, a few µs of GPU work
constexpr int kMaxTinySize = 1024;
constexpr int kMaxChain = 100000;  // empty kernels in one launch-cost chain
constexpr int kDefaultLaunchRepeats = 31;

}  // namespace

std::optional<GraphOptions> parse_options(StageCli& cli, int argc, const char* const* argv) {
  add_pool_options(cli, /*with_sweep=*/false);
  cli.add_output("dot", "Write the captured graph as Graphviz DOT (cudaGraphDebugDotPrint) to FILE");
  cli.add_flag("skip-join", "Leave out step 4 (join): show the error CUDA gives, then exit 1");
  cli.add_int("tiny-count", "Empty kernels and tiny GEMMs in the where-graphs-win runs", kDefaultTinyCount, 1,
              kMaxTinyCount);
  cli.add_int("tiny-size", "m = n = k of the tiny GEMMs", kDefaultTinySize, 1, kMaxTinySize);
  cli.add_text("launch-chains", "Chain lengths of the launch-cost study (empty kernels), or off", "10,100,1000,10000",
               "LIST");
  cli.add_int("launch-repeats", "Timed repeats per chain length and figure in the launch-cost study",
              kDefaultLaunchRepeats, 5, 10000);
  add_changing_shapes_options(cli);
  add_timeline_options(cli);
  add_regime_map_options(cli);
  const std::optional<CommonOptions> common = cli.parse(argc, argv);
  if (!common) return std::nullopt;

  GraphOptions options;
  options.common = *common;
  options.pool = read_pool_options(cli, *common, /*with_sweep=*/false);
  options.dot_path = cli.get_string("dot");
  options.skip_join = cli.get_flag("skip-join");
  if (options.skip_join && options.pool.streams < 2) {
    throw UsageError("--skip-join needs --streams 2 or more: with one stream nothing is forked, so there is "
                     "nothing to join");
  }
  options.tiny = TinyConfig{static_cast<int>(cli.get_int("tiny-count")), static_cast<int>(cli.get_int("tiny-size")),
                            common->host_memory, common->seed};
  const std::string chains = cli.get_string("launch-chains");
  if (chains != "off") {
    std::vector<int> lengths;
    for (const long long ops : parse_int_list("launch-chains", chains, 1, kMaxChain)) lengths.push_back(int(ops));
    std::sort(lengths.begin(), lengths.end());
    lengths.erase(std::unique(lengths.begin(), lengths.end()), lengths.end());
    options.launch.chains = lengths;
  } else {
    options.launch.chains.clear();
  }
  options.launch.repeats = static_cast<int>(cli.get_int("launch-repeats"));
  options.shapes = read_changing_shapes_options(cli);
  options.timeline = read_timeline_options(cli);
  // The map runs none of the experiments these options shape.
  options.map = read_regime_map_options(cli, {"dot", "skip-join", "tiny-count", "tiny-size", "timeline",
                                              "timeline-batches", "trace", "launch-chains", "launch-repeats",
                                              "shape-requests", "shape-max-batches", "shape-seed", "shape-size",
                                              "shape-rounds", "node-updates"});
  return options;
}

void check_memory(const GraphOptions& options, int slots) {
  const CommonOptions& common = options.common;
  const MemoryNeeds one_set = memory_needs(common.work, common.host_memory, slots);
  MemoryNeeds needs = combined(combined(one_set, one_set),
                               memory_needs(tiny_gemm_workload(options.tiny), common.host_memory, options.tiny.count));
  needs.device_bytes += gemm_device_bytes(common.gemm, options.pool.streams + 1);  // + the one-stream sums' stream
  if (options.shapes.sequence_on()) {
    const Workload shapes = changing_shapes_workload(options.shapes, common.work.shape);
    needs = combined(needs, memory_needs(shapes, common.host_memory, device_slots_for(options.pool, shapes.batches)));
  }
  check_fits(needs, "try fewer --batches, --device-buffers slots, a smaller --tiny-count or --shape-requests 0");
}

double estimate_seconds(const GraphOptions& options, const Rates& rates) {
  const CommonOptions& common = options.common;
  const WorkSeconds t = work_seconds(common.work, rates, common.host_memory == HostMemory::pageable);
  const double pipeline = common.host_memory == HostMemory::pageable ? t.serial() : t.overlapped();
  // 3 launches of the costs, 2 GPU variants, the sums, each resource alone twice (streams, graph).
  const double round = 5.0 * pipeline + t.serial() + 2.0 * (t.serial() + std::max(t.h2d, t.d2h));
  const int rounds = common.plan.warmup + common.plan.repeats;
  // The launch-cost study: each chain's six figures (a few us per launch),
  // and the stage's work issued back to back twice.
  double chain_seconds = 0.0;
  for (const int ops : options.launch.chains) {
    chain_seconds += (options.launch.warmup + repeats_for(options.launch, ops)) * ops * 12e-6;
  }
  const double launch_study =
      options.launch.chains.empty()
          ? 0.0
          : chain_seconds + (options.launch.warmup + options.launch.repeats) * 2.0 * pipeline;
  // The changing shapes: one batch of their shape in a pipeline, plus the
  // host's poison and verification of it (about as long again).
  double shapes = 0.0;
  if (options.shapes.sequence_on()) {
    const Workload one = changing_shapes_workload(options.shapes, common.work.shape);
    const WorkSeconds batch = work_seconds(Workload{1, one.shape}, rates, common.host_memory == HostMemory::pageable);
    shapes = changing_shapes_seconds(options.shapes, 2.0 * batch.overlapped());
  }
  return rounds * round * (options.timeline.record ? 1.2 : 1.0) + 2.0 * pipeline + launch_study + shapes;
}

}  // namespace csg::graphs
