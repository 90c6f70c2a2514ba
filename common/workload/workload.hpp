// The article's workload: `batches` independent GEMMs C_i = A_i · B with one
// shared B. A_i is m×k, B is k×n, C_i is m×n, float, row-major, all batches of A
// (and of C) packed back to back as the article's h_A[num_batch][Asize].
// Data are small integers 0..4, so every float result is exact (each C element
// is at most 16·k, exact while 16·k < 2^24) and verification can compare exactly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace csg {

struct GemmShape {
  int m = 1024;
  int n = 1024;
  int k = 512;
};

struct Workload {
  int batches = 100;
  GemmShape shape;

  std::size_t a_elems() const { return std::size_t(shape.m) * std::size_t(shape.k); }  // per batch
  std::size_t b_elems() const { return std::size_t(shape.k) * std::size_t(shape.n); }  // shared
  std::size_t c_elems() const { return std::size_t(shape.m) * std::size_t(shape.n); }  // per batch
  std::size_t a_bytes() const { return a_elems() * sizeof(float); }
  std::size_t b_bytes() const { return b_elems() * sizeof(float); }
  std::size_t c_bytes() const { return c_elems() * sizeof(float); }
  std::size_t batch_count() const { return std::size_t(batches); }
  // 2·m·n·k: one multiply and one add per term of each dot product.
  double flops_per_batch() const { return 2.0 * shape.m * shape.n * shape.k; }
};

// Largest value the generator produces: entries are 0..kMaxEntry.
inline constexpr int kMaxEntry = 4;

// Fills `out` with integers 0..4 from a counter-based hash of (seed, matrix_id,
// element index): the same seed gives the same matrix whatever the thread
// count, the order of filling, the pool size or the stage.
void fill_matrix(std::span<float> out, std::uint64_t seed, std::uint64_t matrix_id);

// The article's init_data for every A_i (matrix ids 1..batches) and B (id 0).
void fill_inputs(const Workload& work, std::uint64_t seed, std::span<float> a_all, std::span<float> b);

// NaN everywhere (all bits set), so an output element nobody wrote can't pass.
void poison_host(std::span<float> out);

// SplitMix64: a tiny, well-mixed 64-bit hash; the generator behind every
// random number in the suite (data, verification vectors, samples).
constexpr std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

}  // namespace csg
