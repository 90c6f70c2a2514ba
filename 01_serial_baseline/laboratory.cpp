// The one table of stage 01's laboratory.
#include "laboratory.hpp"
#include "lesson.hpp"

namespace csg::lesson01 {

std::span<const Subcommand> laboratory() {
  static const Subcommand kLaboratory[] = {
      {"kernels", "the serial run and its stage sums with a faster kernel: tiled, or cuBLAS (FP32 or TF32)",
       serial::run_kernels},
      {"timeline", "one more serial run recorded with CUPTI, drawn as the article's first timeline",
       serial::run_timeline},
  };
  return kLaboratory;
}

}  // namespace csg::lesson01
