#include "02_pinned_vs_pageable/lab/overlap.hpp"

namespace csg::copies {
namespace {

constexpr const char* kAbout = R"(
overlap: cudaMemcpyAsync beside a busy kernel: the host held, and whether the copy overlaps

cudaMemcpyAsync on one stream beside a busy kernel on another, from pageable and from pinned memory,
both directions, both issue orders: how long the call holds the host, and whether the copy runs
while the kernel does.
)";

constexpr const char* kRuns = R"(
# cudaMemcpyAsync beside a busy kernel: bounds, appendix
fc   -
q    -  --warmup 1 --repeats 5
t    tiny  --overlap-mib 1 --kernel-ms 1 --warmup 1 --repeats 2
m    -     --overlap-mib 1 --kernel-ms 1 --warmup 0 --repeats 1
)";

const Experiment<overlap::Config, overlap::Figures> kExperiment = overlap::declared<false>(kAbout, kRuns);

}  // namespace

extern const Subcommand kOverlap = make_subcommand<kExperiment>();

}  // namespace csg::copies
