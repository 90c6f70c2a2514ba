// 01_serial_baseline timeline: the serial run timed with its stage sums, then
// one more run recorded with CUPTI and drawn: the article's first timeline,
// one row (the default stream) where a copy and a kernel never run together.
#include "laboratory.hpp"
#include "lesson.hpp"

namespace csg::serial {

int run_timeline(int argc, char** argv) {
  StageCli cli(subcommand_program(lesson01::kStage, "timeline"),
               "The serial run and its stage sums, then one more serial run recorded with CUPTI and drawn as a "
               "timeline (H copy in, K kernel, D copy out), re-timed after the recording.");
  add_timeline_options(cli);
  const std::optional<CommonOptions> options = cli.parse_or_help(argc, argv);  // all checked before any CUDA call
  if (!options) return kExitOk;
  return run_serial_experiment("timeline", *options, read_timeline_options(cli));
}

}  // namespace csg::serial
