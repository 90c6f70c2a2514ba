#include "batches.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "base/parallel.hpp"
#include "base/text.hpp"

namespace csg {
namespace {

// x_j in ±1..1024: never 0, so no column is ignored, and two errors in one
// row cancel in C·x only if their x_j happen to match (about 1 in 2048).
constexpr int kMaxMultiplier = 1024;

// Largest |C| element: k terms of at most 4·4.
double max_abs_c(const Workload& work) { return double(kMaxEntry) * kMaxEntry * work.shape.k; }

// Allowed |expected − got| for one element. Zero while float accumulation is
// exact (every partial sum below 2^24); otherwise the worst-case float
// summation error, k·2^-24 per unit of the largest partial sum.
double element_tolerance(const Workload& work) {
  const double largest = max_abs_c(work);
  if (largest < 16777216.0) return 0.0;
  return largest * work.shape.k * std::ldexp(1.0, -24);
}

// Exact CPU dot product of row `row` of A_i and column `col` of B.
double reference_element(const Workload& work, const float* a, const float* b, int row, int col) {
  const int n = work.shape.n;
  const int k = work.shape.k;
  const float* a_row = a + std::size_t(row) * k;
  double sum = 0.0;
  for (int i = 0; i < k; ++i) sum += double(a_row[i]) * double(b[std::size_t(i) * n + col]);
  return sum;
}

// NaN-safe "close enough": false for NaN and infinities.
bool close(double expected, double got, double tolerance) {
  return std::abs(expected - got) <= tolerance;
}

std::optional<Mismatch> check_batch(const Workload& work, int batch, const float* a, const float* b,
                                    const float* c, const std::vector<double>& x,
                                    const std::vector<double>& bx, const VerifyOptions& options) {
  const int m = work.shape.m;
  const int n = work.shape.n;
  const int k = work.shape.k;
  const double tol = element_tolerance(work);
  // Row sums are exact in double while below 2^53; beyond, allow their rounding.
  const double row_sum_bound = max_abs_c(work) * kMaxMultiplier * n;
  const double row_tol = (tol == 0.0 && row_sum_bound < std::ldexp(1.0, 53))
                             ? 0.0
                             : tol * kMaxMultiplier * n + row_sum_bound * n * std::ldexp(1.0, -52);

  for (int row = 0; row < m; ++row) {
    const float* c_row = c + std::size_t(row) * n;
    const float* a_row = a + std::size_t(row) * k;
    double cx = 0.0;
    for (int j = 0; j < n; ++j) cx += double(c_row[j]) * x[j];
    double abx = 0.0;
    for (int i = 0; i < k; ++i) abx += double(a_row[i]) * bx[i];
    if (close(abx, cx, row_tol)) continue;
    // The row is wrong somewhere: find the first wrong element to report it.
    for (int col = 0; col < n; ++col) {
      const double expected = reference_element(work, a, b, row, col);
      if (!close(expected, c_row[col], tol)) {
        return Mismatch{batch, row, col, expected, double(c_row[col]), "freivalds"};
      }
    }
    return Mismatch{batch, row, -1, abx, cx, "freivalds"};
  }

  // Sampled exact check: independent of x, catches what Freivalds could miss
  // when two errors in one row cancel.
  for (const auto& [row, col] : sampled_elements(options.seed, batch, work.shape, options.samples_per_batch)) {
    const double expected = reference_element(work, a, b, row, col);
    const double got = c[std::size_t(row) * n + col];
    if (!close(expected, got, tol)) return Mismatch{batch, row, col, expected, got, "sampled"};
  }
  return std::nullopt;
}

}  // namespace

std::uint64_t output_digest(const Workload& work, std::span<const float> c_all) {
  if (c_all.size() < work.batch_count() * work.c_elems()) {
    throw std::invalid_argument("output_digest: buffer smaller than the workload");
  }
  std::vector<std::uint64_t> per_batch(work.batch_count());
  parallel_for(work.batch_count(), [&](std::size_t begin, std::size_t end) {
    for (std::size_t batch = begin; batch < end; ++batch) {
      const float* c = c_all.data() + batch * work.c_elems();
      std::uint64_t h = splitmix64(0x4449474553540000ull + batch);
      for (std::size_t i = 0; i < work.c_elems(); ++i) {
        std::uint32_t bits = 0;
        std::memcpy(&bits, c + i, sizeof bits);
        h = splitmix64(h ^ bits);
      }
      per_batch[batch] = h;
    }
  }, grain_for(work.c_elems()));
  std::uint64_t digest = splitmix64(work.c_elems());
  for (const std::uint64_t h : per_batch) digest = splitmix64(digest ^ h);
  return digest;
}

std::string digest_text(std::uint64_t digest) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(digest));
  return text;
}

std::vector<double> freivalds_multipliers(std::uint64_t seed, int n) {
  std::vector<double> x(static_cast<std::size_t>(n));
  const std::uint64_t x_key = splitmix64(seed ^ 0x46524549564Cull);
  for (int j = 0; j < n; ++j) {
    const std::uint64_t r = splitmix64(x_key + std::uint64_t(j));
    const double magnitude = double(1 + r % kMaxMultiplier);
    x[std::size_t(j)] = (r >> 63) ? -magnitude : magnitude;
  }
  return x;
}

std::vector<std::pair<int, int>> sampled_elements(std::uint64_t seed, int batch, GemmShape shape, int count) {
  std::vector<std::pair<int, int>> elements;
  const std::uint64_t key = splitmix64(seed ^ 0x5A4D504C45ull ^ splitmix64(std::uint64_t(batch)));
  for (int s = 0; s < count; ++s) {
    const std::uint64_t r = splitmix64(key + std::uint64_t(s));
    elements.emplace_back(int(r % std::uint64_t(shape.m)), int((r >> 32) % std::uint64_t(shape.n)));
  }
  return elements;
}

std::string VerifyResult::message() const {
  if (passed) {
    const std::string count = batches_checked == 1 ? "the 1 " + checked : "all " + plural(batches_checked, checked);
    return count + " verified (" + method + ")";
  }
  if (!failure.empty()) return "verification failed: " + failure;
  if (!first_failure) return "verification failed";
  const Mismatch& f = *first_failure;
  char text[256];
  if (f.col >= 0) {
    std::snprintf(text, sizeof text, "batch %d, C[%d][%d]: expected %.17g, got %.17g (%s check)", f.batch,
                  f.row, f.col, f.expected, f.got, f.check.c_str());
  } else {
    std::snprintf(text, sizeof text, "batch %d, row %d: C·x = %.17g but A·(B·x) = %.17g (%s check)", f.batch,
                  f.row, f.got, f.expected, f.check.c_str());
  }
  return std::string("verification failed: ") + text;
}

VerifyResult verify_batches(const Workload& work, std::span<const float> a_all, std::span<const float> b,
                            std::span<const float> c_all, const VerifyOptions& options) {
  if (a_all.size() < work.batch_count() * work.a_elems() || b.size() < work.b_elems() ||
      c_all.size() < work.batch_count() * work.c_elems()) {
    throw std::invalid_argument("verify_batches: buffers smaller than the workload");
  }
  const int n = work.shape.n;
  const int k = work.shape.k;

  // x: random non-zero integers, the same for every batch; B·x once for all.
  const std::vector<double> x = freivalds_multipliers(options.seed, n);
  std::vector<double> bx(static_cast<std::size_t>(k), 0.0);
  for (int i = 0; i < k; ++i) {
    const float* b_row = b.data() + std::size_t(i) * n;
    double sum = 0.0;
    for (int j = 0; j < n; ++j) sum += double(b_row[j]) * x[j];
    bx[i] = sum;
  }

  std::vector<std::optional<Mismatch>> per_batch(work.batch_count());
  parallel_for(work.batch_count(), [&](std::size_t begin, std::size_t end) {
    for (std::size_t batch = begin; batch < end; ++batch) {
      per_batch[batch] = check_batch(work, int(batch), a_all.data() + batch * work.a_elems(), b.data(),
                                     c_all.data() + batch * work.c_elems(), x, bx, options);
    }
  }, grain_for(work.a_elems() + work.c_elems()));

  VerifyResult result;
  result.batches_checked = work.batches;
  const auto failed = std::find_if(per_batch.begin(), per_batch.end(), [](const auto& f) { return f.has_value(); });
  result.passed = failed == per_batch.end();
  if (!result.passed) result.first_failure = *failed;
  return result;
}

}  // namespace csg
