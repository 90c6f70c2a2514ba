// Stage 02's one registry: the lesson's runs and the laboratory's table, in
// the order --help and --list give them.
#include "02_pinned_vs_pageable/lab/laboratory.hpp"
#include "lesson.hpp"

namespace csg::lesson02 {

namespace {

constexpr Run kLessonRuns[] = {
    // 02: the lesson, pinned vs pageable: appendix
    {.modes = "qfc"},
    {.modes = "t", .name = "tiny", .args = "--sizes 4K,1000,256K --async-mib 1 --warmup 1 --repeats 2"},
    {.modes = "s", .args = "--sizes 4K,1000 --async-mib 1 --warmup 0 --repeats 1"},
};

constexpr Run kSweepRuns[] = {
    // bandwidth per host memory kind: 4 sizes: copy table, bandwidth.png, --table peaks
    {.modes = "qc", .args = "--quick"},
    // ... every size up to 1 GiB (--full)
    {.modes = "f"},
    {.modes = "t", .name = "tiny", .args = "--sizes 4K,1000,256K --warmup 1 --repeats 2"},
    {.modes = "t", .name = "quick_pinned", .args = "--quick --sizes 64K --host-memory pinned"},
    {.modes = "s", .args = "--sizes 4K,1000 --warmup 0 --repeats 1"},
};

constexpr Run kOverlapRuns[] = {
    // cudaMemcpyAsync beside a busy kernel: bounds, appendix
    {.modes = "qfc"},
    {.modes = "t", .name = "tiny", .args = "--overlap-mib 1 --kernel-ms 1 --warmup 1 --repeats 2"},
    {.modes = "s", .args = "--overlap-mib 1 --kernel-ms 1 --warmup 0 --repeats 1"},
};

constexpr Run kPinningCostRuns[] = {
    // what pinning costs: bounds, appendix
    {.modes = "qc", .args = "--pin-max-mib 256"},
    // ... up to 4 GiB (--full)
    {.modes = "f"},
    {.modes = "t", .name = "tiny", .args = "--pin-max-mib 4 --warmup 0 --repeats 1"},
};

constexpr Run kTimelineRuns[] = {
    // the overlap's cases on a timeline: timeline_02_pinned_vs_pageable-timeline.png
    {.modes = "qfc", .args = "--trace {trace}"},
    {.modes = "t", .name = "tiny", .args = "--overlap-mib 1 --kernel-ms 1 --warmup 0 --repeats 1 --timeline-batches 3"},
};

}  // namespace

Laboratory laboratory() {
  static const Subcommand kLaboratory[] = {
      {"sweep", "bandwidth of the four host memory kinds by size; both ways at once; the staging copy",
       copies::run_sweep, kSweepRuns},
      {"overlap", "cudaMemcpyAsync beside a busy kernel: the host held, and whether the copy overlaps",
       copies::run_overlap, kOverlapRuns},
      {"pinning-cost", "what cudaMallocHost and cudaHostRegister cost, against malloc and a first touch",
       copies::run_pinning_cost, kPinningCostRuns},
      {"timeline", "the overlap's telling cases recorded with CUPTI and drawn", copies::run_timeline, kTimelineRuns},
  };
  return {kLessonRuns, kLaboratory};
}

}  // namespace csg::lesson02
