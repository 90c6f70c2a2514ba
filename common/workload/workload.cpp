#include "workload/workload.hpp"

#include <cstring>

#include "base/parallel.hpp"

namespace csg {

void fill_matrix(std::span<float> out, std::uint64_t seed, std::uint64_t matrix_id) {
  const std::uint64_t stream_key = splitmix64(seed ^ splitmix64(matrix_id));
  parallel_for(out.size(), [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      out[i] = static_cast<float>(splitmix64(stream_key + i) % (kMaxEntry + 1));
    }
  });
}

void fill_inputs(const Workload& work, std::uint64_t seed, std::span<float> a_all, std::span<float> b) {
  fill_matrix(b, seed, 0);
  for (std::size_t batch = 0; batch < work.batch_count(); ++batch) {
    fill_matrix(a_all.subspan(batch * work.a_elems(), work.a_elems()), seed, batch + 1);
  }
}

void poison_host(std::span<float> out) {
  parallel_for(out.size(), [&](std::size_t begin, std::size_t end) {
    std::memset(out.data() + begin, 0xFF, (end - begin) * sizeof(float));
  });
}

}  // namespace csg
