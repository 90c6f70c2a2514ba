// The workload's GEMM: which kernel computes C_i = A_i · B (--kernel), the
// suite's own kernels, and Gemm, which runs the chosen one on a stream.
//   naive   the article's kernel (common.cuh): one thread per element of C,
//           32×32 = 1024 threads per block. ~6 TFLOP/s on an H200, so the
//           pipeline is bound by compute and streams only hide the copies.
//   tiled   shared-memory tiles, each thread a 4×4 block of C in registers:
//           the same arithmetic with 4× fewer loads per FLOP.
//   cublas  cublasSgemm on the batch's stream; --tf32 lets it use TF32 tensor
//           cores. Fast enough that PCIe, not compute, sets the pipeline's pace.
// Every kernel is exact on the suite's integer data (entries 0..4, sums up to
// 16·k < 2^24; TF32's 10-bit mantissa holds 0..4 exactly and accumulates in
// FP32), so every batch is verified the same way whatever computes it. The
// naive and tiled kernels add the k products of each element in the same order
// with fused multiply-adds, so on any data they give the same bits.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "batches.hpp"

namespace csg {

// ---- which kernel ----------------------------------------------------------

enum class GemmKernel { naive, tiled, cublas };

struct GemmChoice {
  GemmKernel kernel = GemmKernel::naive;
  bool tf32 = false;  // cuBLAS only: TF32 tensor cores (CUBLAS_TF32_TENSOR_OP_MATH)
};

std::string_view to_string(GemmKernel kernel);  // "naive", "tiled", "cublas"
// "naive", "tiled", "cublas" or "cublas+tf32": the name in tables and JSON.
std::string gemm_name(const GemmChoice& choice);

// --kernel's value and --tf32; UsageError for an unknown kernel, or --tf32 without cublas.
GemmChoice parse_gemm_choice(const std::string& kernel, bool tf32);

// The most rows of C a kernel's grid can cover (gridDim.y is at most 65535
// blocks); 0: no limit of its own (cuBLAS takes any int).
long long max_gemm_rows(GemmKernel kernel);

// ---- the suite's kernels: block and tile shapes ----------------------------

// A grid holds at most 65535 blocks in y; both kernels put rows of C on y.
inline constexpr long long kMaxGridY = 65535;

// The tiled kernel: a block computes a 64×64 tile of C; it walks k in steps of
// 16, staging a 64×16 slice of A and a 16×64 slice of B in shared memory (8 KiB),
// and each of its 256 threads keeps a 4×4 block of C in registers: per step
// 4 + 4 floats read for 16 FMAs, where the naive kernel loads 2 per FMA.
inline constexpr int kTiledTileM = 64;
inline constexpr int kTiledTileN = 64;
inline constexpr int kTiledTileK = 16;
inline constexpr int kTiledThreadM = 4;
inline constexpr int kTiledThreadN = 4;
inline constexpr int kTiledThreads = (kTiledTileM / kTiledThreadM) * (kTiledTileN / kTiledThreadN);
static_assert(kTiledTileM % kTiledThreadM == 0 && kTiledTileN % kTiledThreadN == 0, "threads tile the block's C");
static_assert(kTiledThreads <= 1024, "a block holds at most 1024 threads");
static_assert((kTiledTileM * kTiledTileK) % kTiledThreads == 0, "every thread loads the same share of A's slice");
static_assert((kTiledTileK * kTiledTileN) % kTiledThreads == 0, "every thread loads the same share of B's slice");
static_assert(kTiledThreadM == 4 && kTiledThreadN == 4, "the inner loop reads its 4 values of A and of B as float4");

// C = A · B for one batch, queued on `stream`, for every m, n, k ≥ 1; the launch is checked.
void launch_gemm_naive(const float* a, const float* b, float* c, GemmShape shape, cudaStream_t stream);
void launch_gemm_tiled(const float* a, const float* b, float* c, GemmShape shape, cudaStream_t stream);

// ---- the run's GEMM, whichever computes it --------------------------------
//
// cuBLAS: one handle per stream, each with its own workspace (scratch memory
// its kernels may use: two streams sharing a handle would share it), allocated
// with the handle because a capture may not allocate: call prepare(stream) for
// every stream before capturing on it; run() creates a missing handle itself,
// but not while the stream captures.

// NVIDIA's recommended cuBLAS workspace on Hopper (4 MiB before it).
inline constexpr std::uint64_t kCublasWorkspaceBytes = std::uint64_t(32) << 20;

class Gemm {
 public:
  explicit Gemm(GemmChoice choice = {});
  ~Gemm();
  Gemm(const Gemm&) = delete;
  Gemm& operator=(const Gemm&) = delete;

  const GemmChoice& choice() const { return choice_; }
  GemmKernel kernel() const { return choice_.kernel; }
  std::string name() const { return gemm_name(choice_); }

  // cuBLAS: creates `stream`'s handle and workspace now, if it has none.
  void prepare(cudaStream_t stream) const;

  // C = A · B for one batch (row-major, m×k times k×n), queued on `stream`;
  // checked. std::logic_error for a capturing cuBLAS stream never prepared.
  void run(const float* a, const float* b, float* c, GemmShape shape, cudaStream_t stream) const;

 private:
  struct StreamHandle;
  GemmChoice choice_;
  // `mutable`: a cache of handles, not a change in what run() computes.
  mutable std::map<cudaStream_t, std::unique_ptr<StreamHandle>> handles_;
};

// Device memory the handles of `streams` streams take (0 unless cuBLAS).
std::uint64_t gemm_device_bytes(const GemmChoice& choice, int streams);

}  // namespace csg
