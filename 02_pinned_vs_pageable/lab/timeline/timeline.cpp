#include "02_pinned_vs_pageable/lab/overlap.hpp"

namespace csg::copies {
namespace {

constexpr const char* kAbout = R"(
timeline: the overlap's telling cases recorded with CUPTI and drawn

The overlap experiment, then its telling cases once more each, recorded with CUPTI and drawn:
pageable H2D with the kernel queued first and with the copy issued first, pinned H2D issued first.
)";

constexpr const char* kRuns = R"(
# the overlap's cases on a timeline: timeline_02_pinned_vs_pageable-timeline.png
fc   -     --trace {trace}
q    -     --warmup 1 --repeats 2 --trace {trace}
t    tiny  --overlap-mib 1 --kernel-ms 1 --warmup 0 --repeats 1 --timeline-batches 3
)";

const Experiment<overlap::Config, overlap::Figures> kExperiment = overlap::declared<true>(kAbout, kRuns);

}  // namespace

extern const Subcommand kTimeline = make_subcommand<kExperiment>();

}  // namespace csg::copies
