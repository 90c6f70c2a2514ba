// Which GEMM computes C_i = A_i · B (issue 9: the kernel decides the regime).
//   naive   the article's kernel: one thread per element of C, ~6 TFLOP/s on an
//           H200, so the pipeline is bound by compute and streams only hide copies
//   tiled   shared-memory tiles, each thread a 4×4 block of C in registers
//           (gemm_tiled.cuh): the same arithmetic, several times fewer loads
//   cublas  cublasSgemm on the batch's stream; --tf32 lets it use TF32 tensor
//           cores. Fast enough that PCIe, not compute, sets the pipeline's pace.
// Every kernel is exact on the suite's integer data (entries 0..4, sums up to
// 16·k < 2^24; TF32's 10-bit mantissa holds 0..4 exactly and accumulates in
// FP32), so every batch is verified the same way whatever computes it.
// Host-only: option parsing and reports include this without the CUDA headers.
#pragma once

#include <string>
#include <string_view>

namespace csg {

enum class GemmKernel { naive, tiled, cublas };

struct GemmChoice {
  GemmKernel kernel = GemmKernel::naive;
  bool tf32 = false;  // cuBLAS only: TF32 tensor cores (CUBLAS_TF32_TENSOR_OP_MATH)
};

std::string_view to_string(GemmKernel kernel);  // "naive", "tiled", "cublas"
// "naive", "tiled", "cublas" or "cublas+tf32": the name in tables and JSON.
std::string gemm_name(const GemmChoice& choice);

// Parses --kernel's value and --tf32 together. Throws UsageError for an unknown
// kernel, or --tf32 with a kernel other than cublas (naive and tiled compute in FP32).
GemmChoice parse_gemm_choice(const std::string& kernel, bool tf32);

// The most rows of C a kernel's grid can cover (gridDim.y is at most 65535
// blocks); 0: no limit of its own (cuBLAS takes any int).
long long max_gemm_rows(GemmKernel kernel);

}  // namespace csg
