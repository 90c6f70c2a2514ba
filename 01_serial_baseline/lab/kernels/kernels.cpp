// The kernels shrink, the copies stay: a faster kernel barely shortens a
// serial run whose time is mostly copies.
#include "01_serial_baseline/lab/serial.hpp"
#include "01_serial_baseline/lesson.hpp"
#include "base/errors.hpp"

namespace csg::serial {
namespace {

constexpr const char* kAbout = R"(
kernels: the serial run and its stage sums with a faster kernel: tiled, or cuBLAS (FP32 or TF32)

The serial run (cudaMemcpy H2D -> GEMM -> cudaMemcpy D2H per batch on the legacy default stream) and
its three stage sums, with a faster kernel than the article's naive one.
)";

constexpr const char* kRuns = R"(
fc  tiled        --kernel tiled
q   cublas       --kernel cublas --warmup 1 --repeats 3
# The faster kernels (the tiled GEMM, cuBLAS FP32 and TF32) at odd sizes.
fc  cublas       --kernel cublas
t   tiled        --kernel tiled --batches 5 --m 33 --n 17 --k 65 --warmup 0 --repeats 1
t   cublas       --kernel cublas --batches 5 --m 33 --n 17 --k 65 --warmup 0 --repeats 1 --host-memory pinned
t   cublas_tf32  --kernel cublas --tf32 --batches 5 --m 1000 --n 3 --k 129 --warmup 0 --repeats 1
# Under the sanitizers: the laboratory's loop through Gemm.
s   -            --kernel tiled --batches 3 --m 33 --n 17 --k 65 --warmup 0 --repeats 1
)";

// A text option checked in read(), so that --tf32 with another kernel is
// named as such, as every stage names it, before the kernel itself is.
void options(StageCli& cli) {
  cli.add_text("kernel", "GEMM: tiled (shared-memory tiles, 4x4 per thread) or cublas (cublasSgemm): tiled|cublas",
               "tiled", "KIND", "one of tiled|cublas");
  cli.add_flag("tf32", "With --kernel cublas: TF32 tensor cores (exact on the suite's integer data)");
}

Config read(const StageCli& cli, CommonOptions& common) {
  const std::string& kernel = cli.get_string("kernel");
  const bool known = kernel == "naive" || kernel == "tiled" || kernel == "cublas";
  if (known) common.gemm = parse_gemm_choice(kernel, cli.get_flag("tf32"));  // --tf32 needs --kernel cublas
  if (!known || common.gemm.kernel == GemmKernel::naive) {
    throw UsageError("--kernel takes one of tiled|cublas, got '" + kernel + "'" +
                     (known ? std::string(" (the article's naive kernel is the lesson's: ") + lesson01::kStage +
                                  " without a subcommand)"
                            : ""));
  }
  validate(common);  // the shape against the chosen kernel's grid
  return {common, {}};
}

// No shared --kernel: its own above, the laboratory's kernels, not the lesson's.
const Experiment<Config, Figures> kExperiment{.about = kAbout, .runs = kRuns, .defaults = {.kernel_choice = false},
    .options = options, .read = read, .needs = needs, .estimate = estimate, .measure = measure, .report = report};

}  // namespace
}  // namespace csg::serial

namespace csg::lesson01 {
extern const Subcommand kKernels = make_subcommand<serial::kExperiment>();
}
