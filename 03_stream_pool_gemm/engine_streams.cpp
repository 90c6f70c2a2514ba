#include "engine_streams.hpp"

#include <stdexcept>

namespace csg {

EngineStreams::EngineStreams(int device_slots) : slots_(device_slots) {
  if (slots_ < 1) throw std::invalid_argument("EngineStreams: needs at least one device slot");
  for (std::vector<Event>* events : {&h2d_done_, &kernel_done_, &d2h_done_}) {
    events->reserve(static_cast<std::size_t>(slots_));
    for (int slot = 0; slot < slots_; ++slot) events->emplace_back(cudaEventDisableTiming);
  }
}

void EngineStreams::issue(const Gemm& gemm, BatchBuffers& buffers) const {
  if (buffers.device_slots() != slots_) {
    throw std::invalid_argument("EngineStreams::issue: buffers have " + std::to_string(buffers.device_slots()) +
                                " device slots, these events were made for " + std::to_string(slots_));
  }
  auto wait = [](cudaStream_t stream, const Event& event) {
    CUDA_CHECK(cudaStreamWaitEvent(stream, event.get(), 0));
  };
  streams_.fork_from(origin());
  for (int batch = 0; batch < buffers.work().batches; ++batch) {
    const auto slot = static_cast<std::size_t>(batch % slots_);
    const bool slot_reused = batch >= slots_;

    if (slot_reused) wait(h2d_stream(), kernel_done_[slot]);
    enqueue_h2d(buffers, batch, h2d_stream());
    h2d_done_[slot].record(h2d_stream());

    wait(compute_stream(), h2d_done_[slot]);
    if (slot_reused) wait(compute_stream(), d2h_done_[slot]);
    enqueue_gemm(gemm, buffers, batch, compute_stream());
    kernel_done_[slot].record(compute_stream());

    wait(d2h_stream(), kernel_done_[slot]);
    enqueue_d2h(buffers, batch, d2h_stream());
    d2h_done_[slot].record(d2h_stream());
  }
  streams_.join_into(origin());
}

}  // namespace csg
