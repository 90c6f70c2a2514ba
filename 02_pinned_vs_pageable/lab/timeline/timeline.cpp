// 02_pinned_vs_pageable timeline: the overlap experiment (lab/overlap.hpp),
// then its telling cases once more each, recorded with CUPTI and drawn: a
// pageable H2D with the kernel queued first runs beside it; issued first, it
// holds the host and the kernel starts only after it; a pinned H2D issued
// first does neither.
#include "02_pinned_vs_pageable/lab/overlap.hpp"
#include "02_pinned_vs_pageable/lesson.hpp"
#include "02_pinned_vs_pageable/options.hpp"

namespace csg::copies::overlap {
namespace {

constexpr const char* kAbout = R"(
timeline: the overlap's telling cases recorded with CUPTI and drawn

The overlap experiment, then its telling cases once more each, recorded with CUPTI and drawn:
pageable H2D with the kernel queued first and with the copy issued first, pinned H2D issued first.
)";

constexpr const char* kRuns = R"(
# the overlap's cases on a timeline: timeline_02_pinned_vs_pageable-timeline.png
qfc  -     --trace {trace}
t    tiny  --overlap-mib 1 --kernel-ms 1 --warmup 0 --repeats 1 --timeline-batches 3
)";

constexpr HostMemory kKinds[] = {HostMemory::pageable, HostMemory::pinned};

void options(StageCli& cli) { add_options(cli, /*timeline=*/true); }

Config read_options(const StageCli& cli, CommonOptions& common) { return read(cli, common, /*timeline=*/true); }

const Experiment<Config, Figures> kExperiment{.about = kAbout, .runs = kRuns, .defaults = copy_defaults(kKinds),
    .options = options, .read = read_options, .needs = needs, .estimate = estimate, .measure = measure,
    .report = report};

}  // namespace
}  // namespace csg::copies::overlap

namespace csg::copies {
extern const Subcommand kTimeline = make_subcommand<overlap::kExperiment>();
}
