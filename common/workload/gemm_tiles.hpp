// Block and tile shapes of the suite's own GEMM kernels, host-visible so that
// option validation can refuse a shape before any CUDA call.
#pragma once

namespace csg {

// A grid holds at most 65535 blocks in y; both kernels put rows of C on y.
inline constexpr long long kMaxGridY = 65535;

// The article's naive kernel: 32×32 = 1024 threads per block, one element of C each.
inline constexpr int kNaiveBlockDim = 32;
static_assert(kNaiveBlockDim * kNaiveBlockDim <= 1024, "a block holds at most 1024 threads");

// The tiled kernel: a block computes a 64×64 tile of C; it walks k in steps of
// 16, staging a 64×16 slice of A and a 16×64 slice of B in shared memory, and
// each of its 16×16 = 256 threads keeps a 4×4 block of C in registers.
// Per step a thread reads 4 + 4 floats from shared memory for 16 FMAs, where
// the naive kernel loads 2 floats per FMA: 4× less traffic per FLOP.
// At the article's size: 1024/64 × 1024/64 = 256 blocks, about 2 per SM on
// 132 SMs, each with 2 slices × 16 × 64 floats × 4 B = 8 KiB of shared memory.
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

}  // namespace csg
