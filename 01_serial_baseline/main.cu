// Stage 01: the serial baseline, the article's first timeline. With pageable
// (malloc) host memory and the legacy default stream, each batch runs copy in,
// compute, copy out, one after the other: at any moment only one of the PCIe
// link and the SMs works, so the total is the SUM of the three stages. The
// later stages shrink it towards the LARGEST of them.
//   ./01_serial_baseline        (the article's 100 GEMMs of 1024x1024x512; --help for the laboratory)

#include "common.cuh"
#include "lesson.hpp"

namespace {

using namespace csg::lesson01;

// Which of a batch's three operations a run issues: the article's loop issues
// all three; the stage sums issue one kind at a time, to time it alone.
enum Ops : unsigned { kH2d = 1, kKernel = 2, kD2h = 4, kAll = kH2d | kKernel | kD2h };

// The article's loop: for every batch, cudaMemcpy H2D, gemm_naive, cudaMemcpy
// D2H, all on the legacy default stream (stream 0). cudaMemcpy D2H returns
// only when C_i is in host memory, so the next batch's copy starts after this
// batch's kernel and copy out: nothing can overlap. The events of the timer
// go on stream 0 too, before the first call and after the last.
csg::Millis serial_run(csg::BatchBuffers& b, csg::EventTimer& timer, unsigned ops = kAll) {
  const csg::Workload& w = b.work();
  const dim3 blocksize = csg::naive_block();       // dim3 blocksize(32, 32)
  const dim3 gridsize = csg::naive_grid(w.shape);  // ((N + 31) / 32, (M + 31) / 32)
  timer.start(nullptr);
  for (int i = 0; i < w.batches; ++i) {
    if (ops & kH2d) {  // copy in: A_i over PCIe (pageable: through the driver's pinned staging buffer)
      CUDA_CHECK(cudaMemcpy(b.device_a(i), b.host_a(i), w.a_bytes(), cudaMemcpyHostToDevice));
    }
    if (ops & kKernel) {  // compute: C_i = A_i * B, one thread per element of C_i
      csg::gemm_naive<<<gridsize, blocksize>>>(b.device_a(i), b.device_b(), b.device_c(i), w.shape.m, w.shape.n,
                                               w.shape.k);
      CUDA_CHECK_LAUNCH("gemm_naive");
    }
    if (ops & kD2h) {  // copy out: waits for the kernel before it, returns when C_i is on the host
      CUDA_CHECK(cudaMemcpy(b.host_c(i), b.device_c(i), w.c_bytes(), cudaMemcpyDeviceToHost));
    }
  }
  return timer.stop();
}

// One round: the serial run (outputs poisoned first, every batch verified
// after the last round), then the three stage sums, each every batch's op of
// one kind alone. If nothing overlaps, the serial run takes their sum. The
// kernels alone write a poisoned device C and the copies out a poisoned host
// C, so what the sums computed is checked as well.
void time_round(Figures& f, csg::BatchBuffers& b, csg::EventTimer& timer, bool timed, bool last,
                std::uint64_t seed) {
  b.poison_outputs(nullptr);
  csg::keep(timed, f.serial, serial_run(b, timer));
  if (last) f.serial_check = b.verify(seed);
  csg::keep(timed, f.h2d_sum, serial_run(b, timer, kH2d));
  b.poison_device_outputs(nullptr);
  csg::keep(timed, f.kernel_sum, serial_run(b, timer, kKernel));
  b.poison_host_outputs();
  csg::keep(timed, f.d2h_sum, serial_run(b, timer, kD2h));
  if (last) f.sums_check = b.verify(seed);
}

// The lesson: check the device and the size, allocate, time the serial run
// and the stage sums in rounds, verify every batch, report.
int lesson(const Options& options) {
  csg::require_device();
  check_size(options);

  // The article's buffers: h_A, h_B, h_C on the host; one d_A and d_C per
  // batch and d_B on the device. Host memory from malloc (pageable), or with
  // --host-memory pinned from cudaMallocHost: the one call that changes.
  csg::BatchBuffers buffers(options.work, options.host_memory);
  buffers.fill_inputs(options.seed);  // init_data, and B copied to the device once
  csg::EventTimer timer;

  // Every variant once per round, so a slow moment of the machine hits all
  // alike and the serial run compares with sums of the same rounds; the
  // warm-up rounds are not kept.
  Figures f;
  for (int round = 0; round < options.rounds(); ++round) {
    const bool timed = round >= options.warmup;
    const bool last = round + 1 == options.rounds();
    time_round(f, buffers, timer, timed, last, options.seed);
    csg::round_done(round, options.rounds());
  }
  return report(options, f) ? csg::kExitOk : csg::kExitFailure;
}

}  // namespace

int main(int argc, char** argv) { return csg::run_stage(kStage, argc, argv, laboratory(), parse_options, lesson); }
