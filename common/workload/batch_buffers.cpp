#include "workload/batch_buffers.hpp"

#include <stdexcept>

#include "workload/gemm.hpp"

namespace csg {
namespace {

// Checked before anything is allocated (members are initialised in order).
int checked_slots(int device_slots, const Workload& work) {
  if (device_slots < 1 || device_slots > work.batches) {
    throw std::invalid_argument("BatchBuffers: device_slots must be in [1, batches]");
  }
  return device_slots;
}

}  // namespace

BatchBuffers::BatchBuffers(const Workload& work, HostMemory host_kind, int device_slots)
    : work_(work),
      device_slots_(checked_slots(device_slots, work)),
      h_a_(work.batch_count() * work.a_elems(), host_kind),
      h_b_(work.b_elems(), host_kind),
      h_c_(work.batch_count() * work.c_elems(), host_kind),
      d_a_(std::size_t(device_slots) * work.a_elems()),
      d_b_(work.b_elems()),
      d_c_(std::size_t(device_slots) * work.c_elems()) {}

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

VerifyResult BatchBuffers::verify(std::uint64_t seed) const {
  VerifyResult result = verify_batches(work_, h_a_.span(), h_b_.span(), h_c_.span(), VerifyOptions{seed, 32});
  result.digest = output_digest(work_, h_c_.span());
  return result;
}

}  // namespace csg
