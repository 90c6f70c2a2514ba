// The pdl subcommand's kernels (pdl.cu), behind the host calls that launch
// them: plainly (<<<>>>), or with cudaLaunchKernelEx and the launch attribute
// cudaLaunchAttributeProgrammaticStreamSerialization = 1 when `programmatic`.
#pragma once

#include <cuda_runtime.h>

namespace csg::graphs {

// The GEMM chain carries the previous output modulo this into the next one:
// every C stays an exact integer in float (at most 16 k + 7).
inline constexpr float kPdlCarry = 8.0f;

// C = A B + (previous mod kPdlCarry), previous == nullptr for the first of
// the chain: the naive kernel's shape and loop, the dot product before the
// wait for the previous kernel (A and B are no kernel's output), the previous
// output after it.
void launch_chain_gemm(bool programmatic, dim3 grid, dim3 block, cudaStream_t stream, const float* a, const float* b,
                       const float* previous, float* c, int m, int n, int k);
// One <<<1, 1>>> kernel of the empty pair, ping (`even`) or pong: its thread
// reads the sequence number, counts a wrong parity in `wrong` (ping must see
// it even, pong odd), and writes the next number.
void launch_sequence_step(bool programmatic, bool even, cudaStream_t stream, unsigned long long* sequence,
                          unsigned long long* wrong);

}  // namespace csg::graphs
