// The run's GEMM, whichever computes it (gemm_choice.hpp): the stages call
// Gemm::run for every batch and never care which kernel is behind it.
//
//   csg::Gemm gemm(options->gemm);                   // --kernel naive|tiled|cublas, --tf32
//   gemm.run(d_a, d_b, d_c, work.shape, stream);     // C = A · B, queued on `stream`
//
// cuBLAS: one handle per stream, each with its own workspace. A handle's
// workspace is scratch memory its kernels may use; two streams running GEMMs
// at the same time through one handle would share it. The workspace is
// allocated here, with the handle, because a capture may not allocate: call
// prepare(stream) for every stream before capturing on it (stage 04 does);
// run() creates a missing handle itself, but refuses to while the stream captures.
// cuBLAS is column-major and the suite row-major: C = A·B row-major is
// Cᵀ = Bᵀ·Aᵀ column-major, so run() passes B first, with n and m swapped.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "workload/gemm_choice.hpp"
#include "workload/workload.hpp"

namespace csg {

// NVIDIA's recommended cuBLAS workspace on Hopper (4 MiB before it).
inline constexpr std::uint64_t kCublasWorkspaceBytes = std::uint64_t(32) << 20;

class Gemm {
 public:
  explicit Gemm(GemmChoice choice = {});
  ~Gemm();
  Gemm(const Gemm&) = delete;
  Gemm& operator=(const Gemm&) = delete;
  Gemm(Gemm&&) = delete;
  Gemm& operator=(Gemm&&) = delete;

  const GemmChoice& choice() const { return choice_; }
  std::string name() const { return gemm_name(choice_); }

  // cuBLAS: creates `stream`'s handle and workspace now, if it has none
  // (nullptr: the legacy default stream). Nothing to do for the other kernels.
  void prepare(cudaStream_t stream) const;

  // C = A · B for one batch (row-major, m×k times k×n), queued on `stream`;
  // checked. Throws std::logic_error for a cuBLAS stream that is capturing
  // and was never prepared.
  void run(const float* a, const float* b, float* c, GemmShape shape, cudaStream_t stream) const;

 private:
  struct StreamHandle;
  GemmChoice choice_;
  // Created on first use; `mutable` because a handle is a cache of this
  // object's, not a change in what run() computes.
  mutable std::map<cudaStream_t, std::unique_ptr<StreamHandle>> handles_;
};

// Device memory the handles of `streams` streams take (0 unless cuBLAS).
std::uint64_t gemm_device_bytes(const GemmChoice& choice, int streams);

}  // namespace csg
