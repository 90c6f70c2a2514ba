// CPU reference GEMM for tests: C_i = A_i·B for every batch, in double.
#pragma once

#include <span>
#include <vector>

#include "batches.hpp"

namespace csg::testing {

inline std::vector<float> reference_gemm(const Workload& work, std::span<const float> a_all,
                                         std::span<const float> b) {
  const int m = work.shape.m, n = work.shape.n, k = work.shape.k;
  std::vector<float> c(work.batch_count() * work.c_elems());
  std::vector<double> row(static_cast<std::size_t>(n));
  for (int batch = 0; batch < work.batches; ++batch) {
    const float* a = a_all.data() + std::size_t(batch) * work.a_elems();
    float* out = c.data() + std::size_t(batch) * work.c_elems();
    for (int i = 0; i < m; ++i) {
      std::fill(row.begin(), row.end(), 0.0);
      for (int p = 0; p < k; ++p) {
        const double a_ip = a[std::size_t(i) * k + p];
        const float* b_row = b.data() + std::size_t(p) * n;
        for (int j = 0; j < n; ++j) row[j] += a_ip * b_row[j];
      }
      for (int j = 0; j < n; ++j) out[std::size_t(i) * n + j] = static_cast<float>(row[j]);
    }
  }
  return c;
}

}  // namespace csg::testing
