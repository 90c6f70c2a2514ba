// Stage 01's serial loop, for the stages that measure it again as their
// same-process baseline: per batch cudaMemcpy H2D -> GEMM -> cudaMemcpy
// D2H, everything on the legacy default stream, nothing overlapping.
#pragma once

#include "workload/batch_buffers.hpp"
#include "workload/gemm_backend.hpp"

namespace csg {

// Returns when the last D2H copy has landed in host memory.
void run_serial_batches(BatchBuffers& buffers, const Gemm& gemm);

}  // namespace csg
