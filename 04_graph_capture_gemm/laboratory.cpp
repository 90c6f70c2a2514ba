// Stage 04's one registry: the lesson's runs and the laboratory's table, in
// the order the stage's --help lists it: the article's graph taken apart,
// then the features CUDA added after the article. Each subcommand is
// declared in lab/<its name>/.
#include "lesson.hpp"

namespace csg::graphs {
extern const Subcommand kCosts, kNodeUpdates, kChangingShapes, kTinyWork, kLaunchChains, kLaunchAnatomy, kRegimeMap,
    kGraph, kSkipJoin, kTimeline, kDeviceLaunch, kConditional, kPdl, kMemoryNodes, kStartup, kRebind;
}

namespace csg::lesson04 {

namespace {

// What scripts/run_suite.sh, the GPU-box check and ctest run of the lesson (STAGE --list).
constexpr const char* kLessonRuns = R"(
# 04: the article's six steps: main table, stages.png
qfc  -
t    tiny                            --batches 7 --m 33 --n 17 --k 65 --streams 3 --warmup 1 --repeats 2
t    tiny_more_streams_than_batches  --batches 3 --m 8 --n 8 --k 8 --streams 8 --warmup 0 --repeats 1
m    -                               --batches 5 --m 33 --n 17 --k 65 --streams 3 --warmup 0 --repeats 1
)";

}  // namespace

Laboratory laboratory() {
  using namespace graphs;
  static const Subcommand kLaboratory[] = {
      kCosts,    kNodeUpdates, kChangingShapes, kTinyWork,     kLaunchChains, kLaunchAnatomy, kRegimeMap, kGraph,
      kSkipJoin, kTimeline,    kDeviceLaunch,   kConditional,  kPdl,          kMemoryNodes,   kStartup,
      kRebind,
  };
  return {kLessonRuns, kLaboratory};
}

}  // namespace csg::lesson04
