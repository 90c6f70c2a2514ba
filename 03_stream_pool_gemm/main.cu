// Stage 03: the article's stream pool. Batch i's copy in, GEMM and copy out go
// on stream i % 8 with cudaMemcpyAsync from pinned memory, so one batch's
// copies run while another batch computes: the total falls from the SUM of
// the three stages (stage 01) towards the LONGEST of them. Past a few
// streams, more streams buy nothing.
//   ./03_stream_pool_gemm        (the article's 100 GEMMs on 8 streams; --help for the laboratory)

#include <vector>

#include "common.cuh"
#include "lesson.hpp"

namespace {

using namespace csg::lesson03;

// Which of a batch's three operations a run issues: the pool's run issues all
// three; the bound's runs leave some out, to time each resource alone.
enum Ops : unsigned { kH2d = 1, kKernel = 2, kD2h = 4, kAll = kH2d | kKernel | kD2h };

struct PoolTime {
  csg::Millis gpu;     // the timer's start on stream 0 to the join on stream 0
  csg::Millis issued;  // the host's time to issue it all
};

// Stage 01's loop, the baseline: cudaMemcpy H2D, the kernel, cudaMemcpy D2H,
// one batch after the other on the legacy default stream (stream 0).
csg::Millis serial_run(csg::BatchBuffers& b, csg::EventTimer& timer) {
  const csg::Workload& w = b.work();
  timer.start(nullptr);
  for (int i = 0; i < w.batches; ++i) {
    CUDA_CHECK(cudaMemcpy(b.device_a(i), b.host_a(i), w.a_bytes(), cudaMemcpyHostToDevice));
    csg::gemm_naive<<<csg::naive_grid(w.shape), csg::naive_block()>>>(b.device_a(i), b.device_b(), b.device_c(i),
                                                                       w.shape.m, w.shape.n, w.shape.k);
    CUDA_CHECK_LAUNCH("gemm_naive");
    CUDA_CHECK(cudaMemcpy(b.host_c(i), b.device_c(i), w.c_bytes(), cudaMemcpyDeviceToHost));
  }
  return timer.stop();
}

// The article's loop on a pool: batch i on stream i % pool_size, between a
// fork and a join on stream 0, where the timer starts and stops (the article
// ends with cudaDeviceSynchronize; the join is what lets one event mark the end).
PoolTime pool_run(csg::BatchBuffers& b, const csg::StreamPool& pool, csg::EventTimer& timer, unsigned ops = kAll,
                  int batches = -1) {
  const csg::Workload& w = b.work();
  if (batches < 0) batches = w.batches;
  const dim3 blocksize = csg::naive_block();       // dim3 blocksize(32, 32)
  const dim3 gridsize = csg::naive_grid(w.shape);  // ((N + 31) / 32, (M + 31) / 32)
  timer.start(pool[0]);
  const csg::HostTimer host;
  // fork: stream 0 records fork_event, every other stream waits on it: their work starts after the timer's start
  CUDA_CHECK(cudaEventRecord(pool.fork_event(), pool[0]));
  for (int s = 1; s < pool.size(); ++s) CUDA_CHECK(cudaStreamWaitEvent(pool[s], pool.fork_event(), 0));
  for (int i = 0; i < batches; ++i) {
    const cudaStream_t stream = pool[i % pool.size()];  // s_idx = i % pool_size
    if (ops & kH2d) {  // copy in over PCIe; from pinned memory the call returns at once
      CUDA_CHECK(cudaMemcpyAsync(b.device_a(i), b.host_a(i), w.a_bytes(), cudaMemcpyHostToDevice, stream));
    }
    if (ops & kKernel) {
      csg::gemm_naive<<<gridsize, blocksize, 0, stream>>>(b.device_a(i), b.device_b(), b.device_c(i), w.shape.m,
                                                          w.shape.n, w.shape.k);
      CUDA_CHECK_LAUNCH("gemm_naive");
    }
    if (ops & kD2h) {  // copy out, after this stream's kernel
      CUDA_CHECK(cudaMemcpyAsync(b.host_c(i), b.device_c(i), w.c_bytes(), cudaMemcpyDeviceToHost, stream));
    }
  }
  // join: every other stream records its join event and stream 0 waits on them all, so the timer stops after every batch
  for (int s = 1; s < pool.size(); ++s) {
    CUDA_CHECK(cudaEventRecord(pool.join_event(s), pool[s]));
    CUDA_CHECK(cudaStreamWaitEvent(pool[0], pool.join_event(s), 0));
  }
  const csg::Millis issued = host.elapsed();
  return {timer.stop(), issued};
}

// One round of a pool: its run (outputs poisoned first, every batch verified
// after the last round), then what its bound is made of: each resource's work
// alone issued the same way, and the busiest stream's batches alone.
void time_pool(PoolFigures& f, const csg::StreamPool& pool, const csg::StreamPool& one_stream, csg::BatchBuffers& b,
               csg::EventTimer& timer, bool timed, bool last, std::uint64_t seed) {
  f.streams = pool.size();
  b.poison_outputs(pool[0]);
  const PoolTime t = pool_run(b, pool, timer);
  csg::keep(timed, f.run, t.gpu);
  csg::keep(timed, f.issued, t.issued);
  if (last) f.check = b.verify(seed);
  csg::keep(timed, f.kernels, pool_run(b, pool, timer, kKernel).gpu);
  csg::keep(timed, f.h2d, pool_run(b, pool, timer, kH2d).gpu);
  csg::keep(timed, f.d2h, pool_run(b, pool, timer, kD2h).gpu);
  csg::keep(timed, f.both_ways, pool_run(b, pool, timer, kH2d | kD2h).gpu);
  const int busiest = (b.work().batches + f.streams - 1) / f.streams;  // stream 0 runs batches 0, S, 2S, ...
  csg::keep(timed, f.busiest, pool_run(b, one_stream, timer, kAll, busiest).gpu);
}

// The lesson: check the device and the size, allocate, time every variant in
// rounds, verify every batch, report.
int lesson(const Options& options) {
  csg::require_device();
  check_size(options);

  // The article's buffers, twice: pageable (malloc) for stage 01's baseline, pinned (cudaMallocHost) for the pool.
  csg::BatchBuffers pageable(options.work, csg::HostMemory::pageable);
  csg::BatchBuffers pinned(options.work, csg::HostMemory::pinned);
  pageable.fill_inputs(options.seed);  // init_data, and B copied to the device once
  pinned.fill_inputs(options.seed);
  std::vector<csg::StreamPool> pools;  // the article's pool: cudaStreamCreate'd streams, a fork and join events
  for (const int size : options.pool_sizes) pools.emplace_back(size);
  const csg::StreamPool one_stream(1);  // the isolated sums and the busiest streams
  csg::EventTimer timer;

  // Every variant once per round, so a slow moment of the machine hits all
  // alike and the ratios are same-run ratios; the warm-up rounds are not kept.
  Figures f;
  f.pools.resize(pools.size());
  for (int round = 0; round < options.rounds(); ++round) {
    const bool timed = round >= options.warmup;
    const bool last = round + 1 == options.rounds();
    pageable.poison_outputs(nullptr);
    csg::keep(timed, f.serial_pageable, serial_run(pageable, timer));
    if (last) f.serial_pageable_check = pageable.verify(options.seed);
    pinned.poison_outputs(nullptr);
    csg::keep(timed, f.serial_pinned, serial_run(pinned, timer));
    if (last) f.serial_pinned_check = pinned.verify(options.seed);
    for (std::size_t p = 0; p < pools.size(); ++p) {
      time_pool(f.pools[p], pools[p], one_stream, pinned, timer, timed, last, options.seed);
    }
    // Each kind of work alone on one stream (their sum is what a serial run
    // takes), and batch 0's op alone (one batch's share of the fill and drain).
    csg::keep(timed, f.h2d_sum, pool_run(pinned, one_stream, timer, kH2d).gpu);
    csg::keep(timed, f.kernel_sum, pool_run(pinned, one_stream, timer, kKernel).gpu);
    csg::keep(timed, f.d2h_sum, pool_run(pinned, one_stream, timer, kD2h).gpu);
    csg::keep(timed, f.h2d_first, pool_run(pinned, one_stream, timer, kH2d, 1).gpu);
    csg::keep(timed, f.kernel_first, pool_run(pinned, one_stream, timer, kKernel, 1).gpu);
    csg::keep(timed, f.d2h_first, pool_run(pinned, one_stream, timer, kD2h, 1).gpu);
    csg::round_done(round, options.rounds());
  }
  return report(options, f) ? csg::kExitOk : csg::kExitFailure;
}

}  // namespace

int main(int argc, char** argv) { return csg::run_stage(kStage, argc, argv, laboratory(), parse_options, lesson); }
