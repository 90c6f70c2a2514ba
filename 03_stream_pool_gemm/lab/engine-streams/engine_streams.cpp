#include "03_stream_pool_gemm/lab/engine-streams/engine_streams.hpp"

#include <stdexcept>

#include "03_stream_pool_gemm/lab/laboratory.hpp"
#include "03_stream_pool_gemm/lab/pool_experiment.hpp"

namespace csg::pool {

EngineStreams::EngineStreams(int device_slots) : slots_(device_slots) {
  if (slots_ < 1) throw std::invalid_argument("EngineStreams: needs at least one device slot");
  for (std::vector<Event>* events : {&h2d_done_, &kernel_done_, &d2h_done_}) {
    events->reserve(static_cast<std::size_t>(slots_));
    for (int slot = 0; slot < slots_; ++slot) events->emplace_back(cudaEventDisableTiming);
  }
}

Millis EngineStreams::run(const BatchOps& ops, int batches, EventTimer& timer, Millis* issued) const {
  auto wait = [](cudaStream_t stream, const Event& event) {
    CUDA_CHECK(cudaStreamWaitEvent(stream, event.get(), 0));
  };
  auto record = [](const Event& event, cudaStream_t stream) { CUDA_CHECK(cudaEventRecord(event.get(), stream)); };
  timer.start(h2d_stream(), {compute_stream(), d2h_stream()});
  const HostTimer host;
  for (int batch = 0; batch < batches; ++batch) {
    const auto slot = static_cast<std::size_t>(batch % slots_);
    const bool slot_reused = batch >= slots_;

    if (slot_reused) wait(h2d_stream(), kernel_done_[slot]);
    ops.h2d(batch, h2d_stream());
    record(h2d_done_[slot], h2d_stream());

    wait(compute_stream(), h2d_done_[slot]);
    if (slot_reused) wait(compute_stream(), d2h_done_[slot]);
    ops.compute(batch, compute_stream());
    record(kernel_done_[slot], compute_stream());

    wait(d2h_stream(), kernel_done_[slot]);
    ops.d2h(batch, d2h_stream());
    record(d2h_done_[slot], d2h_stream());
  }
  if (issued != nullptr) *issued = host.elapsed();
  return timer.stop();
}

namespace {

// 03_stream_pool_gemm engine-streams: the pool against one stream per
// engine, each with its own bound, on pinned memory.
//   03_stream_pool_gemm engine-streams --kernel cublas
const PoolExperiment kExperiment{
    .subcommand = "engine-streams",
    .description = "The stream pool (a stream per batch) against one stream per engine (every H2D on one stream, "
                   "every GEMM on another, every D2H on a third, events carrying each batch along), each with its "
                   "pipeline bound, in the same rounds.",
    .kernel = GemmKernel::cublas,  // where the copies set the pace
    .host_memory_choice = false,   // both pipelines need page-locked memory to overlap
    .pool_flags = {.device_buffers = true, .sweep = false},
    .variants = {.serial_baselines = false, .orders = 1, .engine_streams = true, .bounds = true},
    .bound_details = true};

}  // namespace

// What scripts/run_suite.sh, the GPU-box check and ctest run of it (STAGE --list).
constexpr Run kRuns[] = {
    // one stream per engine: main table
    {.modes = "qfc"},
    {.modes = "t", .name = "tiny", .args = "--batches 13 --m 33 --n 17 --k 65 --streams 3 --warmup 0 --repeats 1"},
};

const Subcommand kEngineStreams{"engine-streams",
                                "the pool against one stream per engine (H2D, kernels, D2H), each with its bound",
                                run_experiment<kExperiment>, kRuns};

}  // namespace csg::pool
