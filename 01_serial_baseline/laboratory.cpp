// Stage 01's one registry: the lesson's runs and the laboratory's table, in
// the order --help and --list give them. Each subcommand is declared in
// lab/<its name>/.
#include "lesson.hpp"

namespace csg::lesson01 {

extern const Subcommand kKernels, kTimeline;

namespace {

constexpr const char* kLessonRuns = R"(
# the article's serial loop
qfc  -
# the same on pinned memory
qfc  pinned       --host-memory pinned
# prints its progress
c    progress     --host-memory pinned --repeats 100
# At tiny, odd sizes, with both host memory kinds.
t    tiny         --batches 5 --m 33 --n 17 --k 65 --warmup 1 --repeats 2
t    tiny_pinned  --batches 3 --m 64 --n 48 --k 40 --warmup 0 --repeats 1 --host-memory pinned
# Under the sanitizers: the lesson's own loop and launch.
m    -            --batches 3 --m 33 --n 17 --k 65 --warmup 0 --repeats 1
)";

}  // namespace

Laboratory laboratory() {
  static const Subcommand kTable[] = {kKernels, kTimeline};
  return {kLessonRuns, kTable};
}

}  // namespace csg::lesson01
