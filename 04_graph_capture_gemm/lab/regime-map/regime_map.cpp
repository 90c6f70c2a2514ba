// 04_graph_capture_gemm regime-map: where graphs win on the article's own
// work. For every GEMM size (m = n = k) and batch count, the pool's run and
// one replay of the same work captured as a graph, in interleaved rounds,
// each cell verified (regime_map_cells.hpp measures, regime_map_report.hpp
// reports: the map, the crossover row by row, every cell's figures).
#include <iostream>

#include "cli/pool_options.hpp"
#include "04_graph_capture_gemm/lab/graph_steps.hpp"
#include "04_graph_capture_gemm/lab/laboratory.hpp"
#include "04_graph_capture_gemm/lab/options.hpp"
#include "04_graph_capture_gemm/lab/regime-map/regime_map_cells.hpp"
#include "04_graph_capture_gemm/lab/regime-map/regime_map_report.hpp"
#include "04_graph_capture_gemm/lab/report.hpp"
#include "report/device_info.hpp"
#include "stage.hpp"

namespace csg::graphs {

// The first lines of its --help.
constexpr const char* kHelp =
    "The stream pool against one graph replay of the same work over GEMM sizes (m = n = k) x batch counts, pinned "
    "memory, each cell verified: where the graph starts to win.";

int run_regime_map(int argc, char** argv) {
  // The map chooses its shapes (--map-sizes) and batch counts (--map-batches).
  CommonDefaults defaults = own_workload_defaults();
  // Pinned only: without it copies don't overlap, and the map would show the
  // staging buffer, not streams against graphs.
  defaults.host_memory_choice = false;
  StageCli cli(subcommand_program(kStage, "regime-map"), kHelp, defaults);
  add_regime_map_options(cli);
  add_kernel_option(cli, GemmKernel::naive);
  std::optional<ArticleOptions> options = parse_article_options(cli, argc, argv);
  if (!options) return kExitOk;  // --help
  const RegimeMapConfig config = read_regime_map_options(cli);
  CommonOptions& common = options->common;
  common.work.shape = GemmShape{config.sizes.back(), config.sizes.back(), config.sizes.back()};
  read_kernel_option(cli, common);  // the largest size against the kernel's grid

  const int device = require_device();
  const Gemm gemm(common.gemm);
  const StreamPool pool(options->pool.streams);
  prepare_pool(gemm, pool);
  // Each cell checks its memory and the map its estimate before any cell runs.
  const RegimeMap map = measure_regime_map(config, common, regime_map_steps(pool, options->pool, gemm));
  const StageResult result = regime_map_result(kStage, query_device_info(device), common, map);
  print_regime_map(std::cout, result, map);
  nlohmann::json doc = regime_map_json(result, map);
  doc["subcommand"] = "regime-map";
  return finish(std::cout, doc, result.verification.passed, common.json_path);
}

// What scripts/run_suite.sh, the GPU-box check and ctest run of it (STAGE --list).
constexpr Run kRuns[] = {
    // where the graph starts to win, 2 sizes x 3 batch counts: regime map section, regime_map_*.png
    {.modes = "q", .args = "--map-sizes 64,512 --map-batches 10,100,1000 --warmup 1 --repeats 5"},
    {.modes = "c", .args = "--map-sizes 64,512 --map-batches 10,100,1000"},
    // ... the whole map, 6 sizes x 4 batch counts (--full)
    {.modes = "f"},
    {.modes = "t", .name = "tiny", .args = "--map-sizes 16,32 --map-batches 3,20 --warmup 0 --repeats 1"},
    {.modes = "s", .args = "--map-sizes 16 --map-batches 3 --streams 2 --warmup 0 --repeats 1"},
};

const Subcommand kRegimeMap{"regime-map", "GEMM sizes x batch counts, the pool vs one replay: where the graph wins",
                            run_regime_map, kRuns};

}  // namespace csg::graphs
