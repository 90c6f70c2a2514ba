#include "reference.hpp"

#include <algorithm>

#include "base/parallel.hpp"

namespace csg::testing {

std::vector<float> reference_gemm(const Workload& work, std::span<const float> a_all, std::span<const float> b) {
  const int m = work.shape.m, n = work.shape.n, k = work.shape.k;
  std::vector<float> c(work.batch_count() * work.c_elems());
  // Row r of the outputs is row r % m of batch r / m; each is summed alone, in
  // the same order whatever the number of threads.
  parallel_for(work.batch_count() * std::size_t(m), [&](std::size_t begin, std::size_t end) {
    std::vector<double> row(static_cast<std::size_t>(n));
    for (std::size_t r = begin; r < end; ++r) {
      const std::size_t batch = r / std::size_t(m);
      const std::size_t i = r % std::size_t(m);
      const float* a = a_all.data() + batch * work.a_elems() + i * std::size_t(k);
      std::fill(row.begin(), row.end(), 0.0);
      for (int p = 0; p < k; ++p) {
        const double a_ip = a[p];
        const float* b_row = b.data() + std::size_t(p) * n;
        for (int j = 0; j < n; ++j) row[j] += a_ip * b_row[j];
      }
      float* out = c.data() + batch * work.c_elems() + i * std::size_t(n);
      for (int j = 0; j < n; ++j) out[j] = static_cast<float>(row[j]);
    }
  }, grain_for(std::size_t(n) * std::size_t(k)));
  return c;
}

}  // namespace csg::testing
