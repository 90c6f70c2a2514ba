// The one table of stage 03's laboratory.
#include "laboratory.hpp"

#include "lesson.hpp"

namespace csg {

namespace pool {

std::string subcommand_program(const char* subcommand) { return std::string(lesson03::kStage) + " " + subcommand; }

std::optional<CommonOptions> parse_or_print_help(StageCli& cli, int argc, char** argv) {
  std::optional<CommonOptions> options = cli.parse(argc, argv);
  if (!options) print_help(cli.help());
  return options;
}

}  // namespace pool

namespace lesson03 {

std::span<const Subcommand> laboratory() {
  static const Subcommand kLaboratory[] = {
      {"kernels", "the pool and its bound with a naive, tiled or cuBLAS GEMM: the regime",
       pool::run_kernels},
      {"order", "depth-first against breadth-first issue, on pinned or on pageable memory",
       pool::run_order},
      {"engine-streams", "the pool against one stream per engine (H2D, kernels, D2H), each with its bound",
       pool::run_engine_streams},
      {"count-sweep", "1 to 1,024 streams on short batches: where more streams stop helping, and why",
       pool::run_count_sweep},
      {"priorities", "short kernels beside a flood of long ones, at the default and greatest priority",
       pool::run_priorities},
      {"contention", "two streams' kernels with little and with much shared memory per block",
       pool::run_contention},
      {"timeline", "one pool run recorded with CUPTI and drawn, a row per stream", pool::run_timeline},
  };
  return kLaboratory;
}

}  // namespace lesson03
}  // namespace csg
