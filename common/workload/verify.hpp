// Verification of every batch, on the host, in double precision.
//
// Freivalds' check: for a random integer vector x, C_i·x must equal A_i·(B·x).
// That costs O(m·n + m·k) per batch instead of the O(m·n·k) of recomputing
// C_i, so all 100 batches are checked in a fraction of a second. A row whose
// check fails is then scanned element by element to name the wrong column.
// On top, a random sample of elements per batch is compared with a CPU dot
// product. NaN (the poison value) never passes: comparisons are written so
// that NaN makes them false.
//
// Verification returns a result; it never prints or exits.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "workload/workload.hpp"

namespace csg {

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
  std::optional<Mismatch> first_failure;  // lowest failing batch
  // A 64-bit hash of every batch's C as checked (output_digest): equal for
  // the same seed and shape whatever computed it, in any stage or process.
  std::optional<std::uint64_t> digest;
  // "all 100 batches verified" or "batch 37, C[12][5]: expected 100, got nan (freivalds)".
  std::string message() const;
};

struct VerifyOptions {
  std::uint64_t seed = 1;
  int samples_per_batch = 32;
};

VerifyResult verify_batches(const Workload& work, std::span<const float> a_all, std::span<const float> b,
                            std::span<const float> c_all, const VerifyOptions& options);

// A 64-bit hash of C over all batches, in batch order, of the bits of every
// float: two runs' outputs are the same exactly when (barring a collision)
// their digests are. Hashed batch by batch on the host's cores.
std::uint64_t output_digest(const Workload& work, std::span<const float> c_all);
// "0123456789abcdef": 16 lower-case hex digits, as the JSON writes it.
std::string digest_text(std::uint64_t digest);

// What the checks use, exposed so that tests can build errors one check
// misses and the other catches:
// Freivalds' x: n non-zero integers in ±1..1024, the same for every batch.
std::vector<double> freivalds_multipliers(std::uint64_t seed, int n);
// The (row, column) of each sampled element of `batch`, in order.
std::vector<std::pair<int, int>> sampled_elements(std::uint64_t seed, int batch, GemmShape shape, int count);

}  // namespace csg
