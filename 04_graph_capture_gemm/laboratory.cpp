// The one table of stage 04's laboratory, in the order the stage's --help lists it:
// the article's graph taken apart, then the features CUDA added after the article.
#include "04_graph_capture_gemm/lab/laboratory.hpp"

#include "lesson.hpp"

namespace csg::lesson04 {

namespace {

// What scripts/run_suite.sh, the GPU-box check and ctest run of the lesson (STAGE --list).
constexpr Run kLessonRuns[] = {
    // 04: the article's six steps: main table, stages.png
    {.modes = "qfc"},
    {.modes = "t", .name = "tiny", .args = "--batches 7 --m 33 --n 17 --k 65 --streams 3 --warmup 1 --repeats 2"},
    {.modes = "t", .name = "tiny_more_streams_than_batches", .args = "--batches 3 --m 8 --n 8 --k 8 --streams 8 --warmup 0 --repeats 1"},
    {.modes = "s", .args = "--batches 5 --m 33 --n 17 --k 65 --streams 3 --warmup 0 --repeats 1"},
};

}  // namespace

Laboratory laboratory() {
  static const Subcommand kLaboratory[] = {
      graphs::kCosts,
      graphs::kNodeUpdates,
      graphs::kChangingShapes,
      graphs::kTinyWork,
      graphs::kLaunchChains,
      graphs::kLaunchAnatomy,
      graphs::kRegimeMap,
      graphs::kGraph,
      graphs::kSkipJoin,
      graphs::kTimeline,
      graphs::kDeviceLaunch,
      graphs::kConditional,
      graphs::kPdl,
      graphs::kMemoryNodes,
      graphs::kStartup,
  };
  return {kLessonRuns, kLaboratory};
}

}  // namespace csg::lesson04
