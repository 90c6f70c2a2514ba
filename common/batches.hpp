// The article's batches: `batches` independent GEMMs C_i = A_i · B with one
// shared B. A_i is m×k, B is k×n, C_i is m×n, float, row-major, and all
// batches of A (and of C) lie back to back, the article's h_A[num_batch][Asize].
//
// The data are small integers 0..4 (the article's rand() % 5, from a hash
// here so that every stage and thread count gets the same matrices). Every
// C element is then an exact integer in float (at most 16·k < 2^24), so the
// check can compare exactly: every batch of every run is verified, not only
// batch 0, and outputs are poisoned with NaN first, so an element nobody
// wrote can't pass.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "owners.hpp"

namespace csg {

struct GemmShape {
  int m = 1024;
  int n = 1024;
  int k = 512;
};

struct Workload {
  int batches = 100;
  GemmShape shape;

  std::size_t a_elems() const { return std::size_t(shape.m) * std::size_t(shape.k); }  // per batch (Asize)
  std::size_t b_elems() const { return std::size_t(shape.k) * std::size_t(shape.n); }  // shared (Bsize)
  std::size_t c_elems() const { return std::size_t(shape.m) * std::size_t(shape.n); }  // per batch (Csize)
  std::size_t a_bytes() const { return a_elems() * sizeof(float); }
  std::size_t b_bytes() const { return b_elems() * sizeof(float); }
  std::size_t c_bytes() const { return c_elems() * sizeof(float); }
  std::size_t batch_count() const { return std::size_t(batches); }
  // 2·m·n·k: a multiply and an add per term of each dot product.
  double flops_per_batch() const { return 2.0 * shape.m * shape.n * shape.k; }
};

// The article's launch shape for gemm_naive: dim3 blocksize(32, 32), one
// thread per element of C, and gridsize((N + 31) / 32, (M + 31) / 32), rounded
// up so that the last partial tile is covered too.
inline constexpr int kNaiveBlockDim = 32;
static_assert(kNaiveBlockDim * kNaiveBlockDim <= 1024, "a block holds at most 1024 threads");
inline dim3 naive_block() { return dim3(kNaiveBlockDim, kNaiveBlockDim); }
inline dim3 naive_grid(GemmShape shape) {
  return dim3((shape.n + kNaiveBlockDim - 1) / kNaiveBlockDim, (shape.m + kNaiveBlockDim - 1) / kNaiveBlockDim);
}

// ---- init ---------------------------------------------------------------------

inline constexpr int kMaxEntry = 4;  // entries are 0..4

// SplitMix64: the tiny, well-mixed hash behind every random number of the suite.
constexpr std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Integers 0..4 from a hash of (seed, matrix_id, index): the same seed gives
// the same matrix whatever fills it, in what order, on how many threads.
void fill_matrix(std::span<float> out, std::uint64_t seed, std::uint64_t matrix_id);
// The article's init_data: every A_i (matrix ids 1..batches) and B (id 0).
void fill_inputs(const Workload& work, std::uint64_t seed, std::span<float> a_all, std::span<float> b);
// NaN everywhere (all bits set): on the host, and queued on `stream` on the device.
void poison_host(std::span<float> out);
void poison_device(float* device_ptr, std::size_t count, cudaStream_t stream);

// ---- verify -------------------------------------------------------------------

// Freivalds' check: for a random integer vector x, C_i·x must equal A_i·(B·x)
// exactly, O(m·n + m·k) per batch instead of the O(m·n·k) of recomputing C_i;
// a row whose sum fails is scanned to name the wrong column. On top, a random
// sample of elements per batch is compared with a CPU dot product. NaN never passes.
struct Mismatch {
  int batch = -1;
  int row = -1;
  int col = -1;  // -1 when a row's Freivalds sum failed but no single element did
  double expected = 0.0;
  double got = 0.0;
  std::string check;  // "freivalds" or "sampled"
};

struct VerifyResult {
  bool passed = false;
  int batches_checked = 0;
  std::string method = "freivalds+sampled";
  std::optional<Mismatch> first_failure;  // the lowest failing batch
  // A 64-bit hash of every batch's C as checked: equal for the same seed and
  // shape whatever computed it, in any stage or process.
  std::optional<std::uint64_t> digest;
  // Where what is checked is not a batch (stage 02's round trips): what
  // batches_checked counts, and what failed, in words no Mismatch can give.
  std::string checked = "batch";
  std::string failure{};
  // "all 100 batches verified" or "batch 37, C[12][5]: expected 100, got nan (freivalds)";
  // "all 18 round trips verified (round-trip bit-exact)" or "verification failed: <failure>".
  std::string message() const;
};

struct VerifyOptions {
  std::uint64_t seed = 1;
  int samples_per_batch = 32;
};

VerifyResult verify_batches(const Workload& work, std::span<const float> a_all, std::span<const float> b,
                            std::span<const float> c_all, const VerifyOptions& options);
// The hash of C over all batches, in batch order, of every float's bits.
std::uint64_t output_digest(const Workload& work, std::span<const float> c_all);
std::string digest_text(std::uint64_t digest);  // 16 lower-case hex digits
// What the checks use, for tests that build errors one check misses and the other catches:
std::vector<double> freivalds_multipliers(std::uint64_t seed, int n);  // n non-zero integers in ±1..1024
std::vector<std::pair<int, int>> sampled_elements(std::uint64_t seed, int batch, GemmShape shape, int count);

// ---- every buffer of a run ------------------------------------------------------

// The article's h_A, h_B, h_C on the host (pageable or pinned) and d_A, d_B,
// d_C on the device: one device A and C per batch (d_A + i * Asize), as the
// article allocates them. The laboratory may ask for fewer device slots:
// batch i then uses slot i % device_slots, safe when the batches sharing a
// slot run in order on one stream.
class BatchBuffers {
 public:
  BatchBuffers(const Workload& work, HostMemory host_kind, int device_slots = 0);  // 0: one per batch

  const Workload& work() const { return work_; }
  int device_slots() const { return device_slots_; }
  HostMemory host_kind() const { return h_a_.kind(); }

  float* host_a(int batch) { return h_a_.data() + std::size_t(batch) * work_.a_elems(); }
  float* host_c(int batch) { return h_c_.data() + std::size_t(batch) * work_.c_elems(); }
  float* device_a(int batch) { return d_a_.data() + std::size_t(batch % device_slots_) * work_.a_elems(); }
  float* device_c(int batch) { return d_c_.data() + std::size_t(batch % device_slots_) * work_.c_elems(); }
  const float* device_b() const { return d_b_.data(); }

  // init_data for every A_i and B, then B copied to the device once.
  void fill_inputs(std::uint64_t seed);
  // NaN into every output: device C (queued on `stream`, then waited for) and host C.
  void poison_outputs(cudaStream_t stream);
  void poison_device_outputs(cudaStream_t stream);
  void poison_host_outputs();
  // Every batch of host C against A and B, and its digest.
  VerifyResult verify(std::uint64_t seed) const;
  // The same for batches 0..batches-1 only (a graph of fewer batches than the buffers hold).
  void poison_first(int batches, cudaStream_t stream);
  VerifyResult verify_first(std::uint64_t seed, int batches) const;

 private:
  Workload work_;
  int device_slots_;
  HostBuffer<float> h_a_;
  HostBuffer<float> h_b_;
  HostBuffer<float> h_c_;
  DeviceBuffer<float> d_a_;
  DeviceBuffer<float> d_b_;
  DeviceBuffer<float> d_c_;
};

}  // namespace csg
