// Stage 03's one registry: the lesson's runs and the laboratory's table, in
// the order --help and --list give them. Each subcommand is declared in
// lab/<its name>/.
#include "lesson.hpp"

namespace csg::pool {
extern const Subcommand kKernels, kOrder, kEngineStreams, kCountSweep, kPriorities, kGraphPriorities, kPartition,
    kContention, kTimeline;
}

namespace csg::lesson03 {

namespace {

// What scripts/run_suite.sh, the GPU-box check and ctest run of the lesson (STAGE --list).
constexpr const char* kLessonRuns = R"(
# 03: the article's pool, pool-size sweep: main table, sweep table, sweep.png, stages.png
# a request of hours, refused up front with its estimate
qfc  -
c    hours           exit=2 --m 65536 --n 65536 --k 65536 --batches 1
t    tiny            --batches 37 --m 33 --n 17 --k 65 --streams 3 --streams-sweep 1,8,32 --warmup 1 --repeats 2
t    tiny_one_batch  --batches 1 --m 40 --n 24 --k 8 --streams 2 --streams-sweep off --warmup 0 --repeats 1
m    -               --batches 7 --m 33 --n 17 --k 65 --streams 3 --streams-sweep 2 --warmup 0 --repeats 1
)";

}  // namespace

Laboratory laboratory() {
  static const Subcommand kLaboratory[] = {pool::kKernels,          pool::kOrder,      pool::kEngineStreams,
                                           pool::kCountSweep,       pool::kPriorities, pool::kGraphPriorities,
                                           pool::kPartition,        pool::kContention, pool::kTimeline};
  return {kLessonRuns, kLaboratory};
}

}  // namespace csg::lesson03
