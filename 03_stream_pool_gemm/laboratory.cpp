// The one table of stage 03's laboratory, in the order the stage's --help lists it.
#include "laboratory.hpp"

#include "lesson.hpp"

namespace csg::lesson03 {

std::span<const Subcommand> laboratory() {
  static const Subcommand kLaboratory[] = {pool::kKernels,    pool::kOrder,      pool::kEngineStreams,
                                           pool::kCountSweep, pool::kPriorities, pool::kContention,
                                           pool::kTimeline};
  return kLaboratory;
}

}  // namespace csg::lesson03
