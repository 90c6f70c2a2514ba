// The one table of stage 02's laboratory.
#include "laboratory.hpp"
#include "lesson.hpp"

namespace csg::lesson02 {

std::span<const Subcommand> laboratory() {
  static const Subcommand kLaboratory[] = {
      {"sweep", "bandwidth of the four host memory kinds by size; both ways at once; the staging copy",
       copies::run_sweep},
      {"overlap", "cudaMemcpyAsync beside a busy kernel: the host held, and whether the copy overlaps",
       copies::run_overlap},
      {"pinning-cost", "what cudaMallocHost and cudaHostRegister cost, against malloc and a first touch",
       copies::run_pinning_cost},
      {"timeline", "the overlap's telling cases recorded with CUPTI and drawn", copies::run_timeline},
  };
  return kLaboratory;
}

}  // namespace csg::lesson02
