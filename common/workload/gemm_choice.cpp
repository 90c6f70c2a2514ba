#include "workload/gemm_choice.hpp"

#include "base/errors.hpp"
#include "workload/gemm_tiles.hpp"

namespace csg {

std::string_view to_string(GemmKernel kernel) {
  switch (kernel) {
    case GemmKernel::naive:
      return "naive";
    case GemmKernel::tiled:
      return "tiled";
    case GemmKernel::cublas:
      return "cublas";
  }
  return "unknown";
}

std::string gemm_name(const GemmChoice& choice) {
  std::string name(to_string(choice.kernel));
  if (choice.tf32) name += "+tf32";
  return name;
}

GemmChoice parse_gemm_choice(const std::string& kernel, bool tf32) {
  GemmChoice choice;
  if (kernel == "naive") {
    choice.kernel = GemmKernel::naive;
  } else if (kernel == "tiled") {
    choice.kernel = GemmKernel::tiled;
  } else if (kernel == "cublas") {
    choice.kernel = GemmKernel::cublas;
  } else {
    throw UsageError("--kernel takes one of naive|tiled|cublas, got '" + kernel + "'");
  }
  if (tf32 && choice.kernel != GemmKernel::cublas) {
    throw UsageError("--tf32 needs --kernel cublas: TF32 is cuBLAS's tensor-core path; the " + kernel +
                     " kernel computes in FP32");
  }
  choice.tf32 = tf32;
  return choice;
}

long long max_gemm_rows(GemmKernel kernel) {
  switch (kernel) {
    case GemmKernel::naive:
      return kMaxGridY * kNaiveBlockDim;
    case GemmKernel::tiled:
      return kMaxGridY * kTiledTileM;
    case GemmKernel::cublas:
      return 0;
  }
  return 0;
}

}  // namespace csg
