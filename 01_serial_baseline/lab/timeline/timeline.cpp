// The article's first timeline: one row (the default stream) where a copy and
// a kernel never run together.
#include "01_serial_baseline/lab/serial.hpp"

namespace csg::serial {
namespace {

constexpr const char* kAbout = R"(
timeline: one more serial run recorded with CUPTI, drawn as the article's first timeline

The serial run and its stage sums, then one more serial run recorded with CUPTI and drawn as a
timeline (H copy in, K kernel, D copy out), re-timed after the recording.
)";

constexpr const char* kRuns = R"(
q   -     --warmup 1 --repeats 2 --trace {trace}
# One recorded serial run, verified, re-timed after the recording. Exit 0
fc  -     --trace {trace}
# also when CUPTI is unavailable (the output says why);
# tests/gpu/test_timeline_01.cu checks what was recorded.
t   tiny  --batches 4 --m 32 --n 16 --k 48 --warmup 0 --repeats 1 --timeline-batches 2
)";

Config read(const StageCli& cli, CommonOptions& common) { return {common, read_timeline_options(cli)}; }

const Experiment<Config, Figures> kExperiment{.about = kAbout, .runs = kRuns, .options = add_timeline_options,
    .read = read, .needs = needs, .estimate = estimate, .measure = measure, .report = report};

}  // namespace
}  // namespace csg::serial

namespace csg::lesson01 {
extern const Subcommand kTimeline = make_subcommand<serial::kExperiment>();
}
