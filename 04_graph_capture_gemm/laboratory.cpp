// The one table of stage 04's laboratory, in the order the stage's --help lists it:
// the article's graph taken apart, then the features CUDA added after the article.
#include "laboratory.hpp"

#include "lesson.hpp"

namespace csg::lesson04 {

std::span<const Subcommand> laboratory() {
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
  return kLaboratory;
}

}  // namespace csg::lesson04
