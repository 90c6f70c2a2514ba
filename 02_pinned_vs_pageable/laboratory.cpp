// Stage 02's one registry: the lesson's runs and the laboratory's table, in
// the order --help and --list give them. Each subcommand is declared in
// lab/<its name>/.
#include "lesson.hpp"

namespace csg::copies {
extern const Subcommand kSweep, kOverlap, kBatchedCopies, kPinningCost, kTimeline;
}

namespace csg::lesson02 {
namespace {

constexpr const char* kLessonRuns = R"(
# 02: the lesson, pinned vs pageable: appendix
qfc  -
t    tiny  --sizes 4K,1000,256K --async-mib 1 --warmup 1 --repeats 2
m    -     --sizes 4K,1000 --async-mib 1 --warmup 0 --repeats 1
)";

}  // namespace

Laboratory laboratory() {
  static const Subcommand kTable[] = {copies::kSweep, copies::kOverlap, copies::kBatchedCopies, copies::kPinningCost,
                                      copies::kTimeline};
  return {kLessonRuns, kTable};
}

}  // namespace csg::lesson02
