// 01_serial_baseline kernels: the serial run and its stage sums with a faster
// kernel than the article's. The kernels shrink, the copies stay: a faster
// kernel barely shortens a serial run whose time is mostly copies.
#include "base/errors.hpp"
#include "laboratory.hpp"
#include "lesson.hpp"
#include "workload/gemm.hpp"

namespace csg::serial {

int run_kernels(int argc, char** argv) {
  CommonDefaults defaults;
  defaults.kernel_choice = false;  // its own --kernel below: the laboratory's kernels, not the lesson's
  StageCli cli(subcommand_program(lesson01::kStage, "kernels"),
               "The serial run (cudaMemcpy H2D -> GEMM -> cudaMemcpy D2H per batch on the legacy default stream) and "
               "its three stage sums, with a faster kernel than the article's naive one.",
               defaults);
  // A text option checked below, so that --tf32 with another kernel is named
  // as such, as every stage names it, before the kernel itself is.
  cli.add_text("kernel", "GEMM: tiled (shared-memory tiles, 4x4 per thread) or cublas (cublasSgemm): tiled|cublas",
               "tiled", "KIND");
  cli.add_flag("tf32", "With --kernel cublas: TF32 tensor cores (exact on the suite's integer data)");
  std::optional<CommonOptions> options = cli.parse_or_help(argc, argv);  // every argument checked before any CUDA call
  if (!options) return kExitOk;
  const std::string& kernel = cli.get_string("kernel");
  const bool known = kernel == "naive" || kernel == "tiled" || kernel == "cublas";
  if (known) options->gemm = parse_gemm_choice(kernel, cli.get_flag("tf32"));  // --tf32 needs --kernel cublas
  if (!known || options->gemm.kernel == GemmKernel::naive) {
    throw UsageError("--kernel takes one of tiled|cublas, got '" + kernel + "'" +
                     (known ? std::string(" (the article's naive kernel is the lesson's: ") + lesson01::kStage +
                                  " without a subcommand)"
                            : ""));
  }
  validate(*options);  // the shape against the chosen kernel's grid
  return run_serial_experiment("kernels", *options, TimelineOptions{});
}

}  // namespace csg::serial
