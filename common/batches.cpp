#include "batches.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <stdexcept>

#include "base/parallel.hpp"

namespace csg {
namespace {

// Checked before anything is allocated (members are initialised in order);
// 0 is the article's layout, a device A and C per batch.
int checked_slots(int device_slots, const Workload& work) {
  if (device_slots == 0) return work.batches;
  if (device_slots < 1 || device_slots > work.batches) {
    throw std::invalid_argument("BatchBuffers: device_slots must be 0 or in [1, batches]");
  }
  return device_slots;
}

Workload first_batches(const Workload& work, int batches) {
  if (batches < 1 || batches > work.batches) {
    throw std::invalid_argument("BatchBuffers: a prefix of " + std::to_string(batches) + " batches of " +
                                std::to_string(work.batches));
  }
  return Workload{batches, work.shape};
}

}  // namespace

void fill_matrix(std::span<float> out, std::uint64_t seed, std::uint64_t matrix_id) {
  const std::uint64_t stream_key = splitmix64(seed ^ splitmix64(matrix_id));
  parallel_for(out.size(), [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      out[i] = static_cast<float>(splitmix64(stream_key + i) % (kMaxEntry + 1));
    }
  }, kFloatsPerThread);
}

void fill_inputs(const Workload& work, std::uint64_t seed, std::span<float> a_all, std::span<float> b) {
  fill_matrix(b, seed, 0);
  auto fill_batches = [&](std::size_t begin, std::size_t end) {
    for (std::size_t batch = begin; batch < end; ++batch) {
      fill_matrix(a_all.subspan(batch * work.a_elems(), work.a_elems()), seed, batch + 1);
    }
  };
  // A large A is split over the cores by fill_matrix; small ones (each on
  // one thread there) are shared out a run of batches per thread.
  if (work.a_elems() >= 2 * kFloatsPerThread) {
    fill_batches(0, work.batch_count());
  } else {
    parallel_for(work.batch_count(), fill_batches, grain_for(work.a_elems()));
  }
}

void poison_host(std::span<float> out) {
  parallel_for(out.size(), [&](std::size_t begin, std::size_t end) {
    std::memset(out.data() + begin, 0xFF, (end - begin) * sizeof(float));
  }, kFloatsPerThread);
}

void poison_device(float* device_ptr, std::size_t count, cudaStream_t stream) {
  // 0xFFFFFFFF is a NaN bit pattern, so a byte memset poisons floats.
  CUDA_CHECK(cudaMemsetAsync(device_ptr, 0xFF, count * sizeof(float), stream));
}

BatchBuffers::BatchBuffers(const Workload& work, HostMemory host_kind, int device_slots)
    : work_(work),
      device_slots_(checked_slots(device_slots, work)),
      h_a_(work.batch_count() * work.a_elems(), host_kind),
      h_b_(work.b_elems(), host_kind),
      h_c_(work.batch_count() * work.c_elems(), host_kind),
      d_a_(std::size_t(device_slots_) * work.a_elems()),
      d_b_(work.b_elems()),
      d_c_(std::size_t(device_slots_) * work.c_elems()) {}

void BatchBuffers::fill_inputs(std::uint64_t seed) {
  csg::fill_inputs(work_, seed, h_a_.span(), h_b_.span());
  CUDA_CHECK(cudaMemcpy(d_b_.data(), h_b_.data(), h_b_.bytes(), cudaMemcpyHostToDevice));
}

void BatchBuffers::poison_device_outputs(cudaStream_t stream) {
  poison_device(d_c_.data(), d_c_.size(), stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));
}

void BatchBuffers::poison_host_outputs() { poison_host(h_c_.span()); }

void BatchBuffers::poison_outputs(cudaStream_t stream) {
  poison_device_outputs(stream);
  poison_host_outputs();
}

VerifyResult BatchBuffers::verify(std::uint64_t seed) const { return verify_first(seed, work_.batches); }

void BatchBuffers::poison_first(int batches, cudaStream_t stream) {
  const Workload first = first_batches(work_, batches);
  // Batches 0..n-1 use device slots 0..min(n, slots)-1.
  const int slots = std::min(batches, device_slots_);
  poison_device(d_c_.data(), std::size_t(slots) * work_.c_elems(), stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  poison_host(h_c_.span().first(first.batch_count() * work_.c_elems()));
}

VerifyResult BatchBuffers::verify_first(std::uint64_t seed, int batches) const {
  const Workload first = first_batches(work_, batches);
  const auto a = h_a_.span().first(first.batch_count() * work_.a_elems());
  const auto c = h_c_.span().first(first.batch_count() * work_.c_elems());
  VerifyResult result = verify_batches(first, a, h_b_.span(), c, VerifyOptions{seed, 32});
  result.digest = output_digest(first, c);
  return result;
}

}  // namespace csg
