// 02_pinned_vs_pageable overlap: cudaMemcpyAsync on one stream beside a busy
// kernel on another (lab/overlap.hpp): how long the call holds the host, and
// whether the copy runs while the kernel does.
#include "02_pinned_vs_pageable/lab/overlap.hpp"
#include "02_pinned_vs_pageable/lesson.hpp"
#include "02_pinned_vs_pageable/options.hpp"

namespace csg::copies::overlap {
namespace {

constexpr const char* kAbout = R"(
overlap: cudaMemcpyAsync beside a busy kernel: the host held, and whether the copy overlaps

cudaMemcpyAsync on one stream beside a busy kernel on another, from pageable and from pinned memory,
both directions, both issue orders: how long the call holds the host, and whether the copy runs
while the kernel does.
)";

constexpr const char* kRuns = R"(
# cudaMemcpyAsync beside a busy kernel: bounds, appendix
qfc  -
t    tiny  --overlap-mib 1 --kernel-ms 1 --warmup 1 --repeats 2
s    -     --overlap-mib 1 --kernel-ms 1 --warmup 0 --repeats 1
)";

// The overlap compares the article's two kinds.
constexpr HostMemory kKinds[] = {HostMemory::pageable, HostMemory::pinned};

void options(StageCli& cli) { add_options(cli, /*timeline=*/false); }

Config read_options(const StageCli& cli, CommonOptions& common) { return read(cli, common, /*timeline=*/false); }

const Experiment<Config, Figures> kExperiment{.about = kAbout, .runs = kRuns, .defaults = copy_defaults(kKinds),
    .options = options, .read = read_options, .needs = needs, .estimate = estimate, .measure = measure,
    .report = report};

}  // namespace
}  // namespace csg::copies::overlap

namespace csg::copies {
extern const Subcommand kOverlap = make_subcommand<overlap::kExperiment>();
}
