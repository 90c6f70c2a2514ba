// Stage 01's one registry: the lesson's runs and the laboratory's table, in
// the order --help and --list give them. Each subcommand is declared in
// lab/<its name>/.
#include "lesson.hpp"

namespace csg::lesson01 {

extern const Subcommand kKernels, kTimeline;

namespace {

constexpr Run kLessonRuns[] = {
    {.modes = "qfc"},                                          // the article's serial loop
    {.modes = "qfc", .name = "pinned", .args = "--host-memory pinned"},  // the same on pinned memory
    {.modes = "c", .name = "progress", .args = "--host-memory pinned --repeats 100"},  // prints its progress
    // At tiny, odd sizes, with both host memory kinds.
    {.modes = "t", .name = "tiny", .args = "--batches 5 --m 33 --n 17 --k 65 --warmup 1 --repeats 2"},
    {.modes = "t",
     .name = "tiny_pinned",
     .args = "--batches 3 --m 64 --n 48 --k 40 --warmup 0 --repeats 1 --host-memory pinned"},
    // Under the sanitizers: the lesson's own loop and launch.
    {.modes = "s", .args = "--batches 3 --m 33 --n 17 --k 65 --warmup 0 --repeats 1"},
};

}  // namespace

Laboratory laboratory() {
  static const Subcommand kTable[] = {kKernels, kTimeline};
  return {kLessonRuns, kTable};
}

}  // namespace csg::lesson01
