#include "stats.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace csg {

Summary summarize(std::vector<Millis> samples) {
  if (samples.empty()) throw std::invalid_argument("summarize: no samples");
  std::sort(samples.begin(), samples.end());
  const std::size_t n = samples.size();
  Summary s;
  s.samples = static_cast<int>(n);
  s.min_ms = samples.front().count();
  s.max_ms = samples.back().count();
  s.median_ms = (n % 2 == 1) ? samples[n / 2].count()
                             : 0.5 * (samples[n / 2 - 1].count() + samples[n / 2].count());
  // Nearest rank: ceil(0.95·n), 1-based.
  const std::size_t rank = static_cast<std::size_t>(std::ceil(0.95 * static_cast<double>(n)));
  s.p95_ms = samples[std::max<std::size_t>(rank, 1) - 1].count();
  return s;
}

double gbps(double bytes, double ms) { return ms > 0.0 ? bytes / (ms * 1e-3) / 1e9 : 0.0; }
double gflops(double flops, double ms) { return ms > 0.0 ? flops / (ms * 1e-3) / 1e9 : 0.0; }

}  // namespace csg
