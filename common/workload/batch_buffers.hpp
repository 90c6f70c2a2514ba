// All buffers of the article's workload, owned in one place:
//   host:   A for every batch, the shared B, C for every batch (h_A, h_B, h_C)
//   device: the shared B, and A and C for `device_slots` batches (d_A, d_B, d_C)
// With device_slots == batches this is the article's layout (one device A and C
// per batch). With fewer slots, batch i uses slot i % device_slots: safe when
// the batches sharing a slot run in order (on one stream).
#pragma once

#include <cstdint>

#include "cuda/device_buffer.hpp"
#include "cuda/host_buffer.hpp"
#include "workload/verify.hpp"
#include "workload/workload.hpp"

namespace csg {

class BatchBuffers {
 public:
  BatchBuffers(const Workload& work, HostMemory host_kind, int device_slots);

  const Workload& work() const { return work_; }
  int device_slots() const { return device_slots_; }
  HostMemory host_kind() const { return h_a_.kind(); }

  float* host_a(int batch) { return h_a_.data() + std::size_t(batch) * work_.a_elems(); }
  float* host_c(int batch) { return h_c_.data() + std::size_t(batch) * work_.c_elems(); }
  float* device_a(int batch) { return d_a_.data() + std::size_t(batch % device_slots_) * work_.a_elems(); }
  float* device_c(int batch) { return d_c_.data() + std::size_t(batch % device_slots_) * work_.c_elems(); }
  const float* device_b() const { return d_b_.data(); }

  // The article's init_data for A and B, then B copied to the device once
  // (synchronously, outside any timed region).
  void fill_inputs(std::uint64_t seed);
  // NaN into every output element: device C on `stream`, then host C.
  // Returns once both are poisoned.
  void poison_outputs(cudaStream_t stream);
  void poison_device_outputs(cudaStream_t stream);
  void poison_host_outputs();

  // Checks every batch of host C against A and B, and hashes it (the digest).
  VerifyResult verify(std::uint64_t seed) const;

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
