// The second half of the article's claim that streams compete for the hardware: "when kernels of several streams
// together need more registers or shared memory than the GPU has, the
// hardware queues them by priority". Two small experiments, each on spin
// kernels whose blocks last a known time (the GPU's nanosecond clock), so that
// what changes between runs is only who waits for an SM:
//
//   priorities: a flood of long kernels on several streams keeps every SM full
//               (every thread slot taken, all the time); beside it a stream
//               of short kernels, launched one at a time. Each short kernel's
//               latency is GPU-side, "queued to done": an event recorded on
//               its stream just before it, one just after. Beside the flood
//               twice: every stream at the default priority, then the short
//               kernels' stream created with the greatest priority the device
//               offers (cudaDeviceGetStreamPriorityRange; [0, -5] on an
//               H200); and once alone on an idle GPU, for their own cost. No
//               running block is preempted: a high-priority kernel takes the
//               first slot that a finishing flood block frees (within one
//               flood block, 20 us), while at the default priority it queues
//               behind every pending block of the flood kernels that were
//               ready before it (up to one kernel of 4 waves per flood stream:
//               4 x 4 x 20 us ~ 320 us). The flood's throughput is reported
//               both ways too, so the cost of priority is visible. Copies are
//               not affected by priority at all (stream priorities order
//               kernel blocks only): only kernels
//               are measured.
//   contention: two streams, each launching one kernel of one block per SM
//               that holds its SM for a fixed time. With little shared memory
//               per block both kernels' blocks fit on an SM together and the
//               two streams run side by side (concurrency = 2 x alone /
//               together ~ 2); with more than half an SM's shared memory per
//               block only one block fits per SM, so the second stream's
//               kernel waits for the first (concurrency ~ 1). Registers per
//               thread limit blocks per SM the same way; shared memory is used
//               here because its size is set exactly at launch, where a
//               kernel's register count is the compiler's choice.
//
// Every kernel's output is checked: each flood block adds to its stream's
// counters (blocks and the sum of block indices, against what was launched),
// each short kernel computes a checkable integer sequence, each contention
// block writes a marker read back through its shared memory. Outputs are
// poisoned before every run. The types here are plain numbers, so the report
// (priorities_report.hpp) and its CPU tests need no GPU; measure_priorities
// and measure_contention (priorities.cu) need a device already selected, and
// set up everything they launch themselves (the large kernel's opt-in to more
// than 48 KiB of shared memory included). Each is a subcommand of the
// laboratory, with its options and estimate: stream_priorities.cpp and
// shared_memory_contention.cpp.
#pragma once

#include <cstdint>
#include <string>

#include "cli/options.hpp"
#include "measure/stats.hpp"

namespace csg::pool {

// The driver's hardware work queues when CUDA_DEVICE_MAX_CONNECTIONS is unset.
inline constexpr int kDefaultHardwareQueues = 8;

// Threads per flood block: 256 divides every GPU's threads per SM, so a
// full SM of flood blocks has no thread slot left for a short kernel's block.
inline constexpr int kFloodThreads = 256;

// --priority-samples at most: 100,000 short kernels per mode and round take minutes.
inline constexpr long long kMaxPrioritySamples = 100000;

// Either experiment's setting up, for the estimates: streams, events,
// buffers, the first launch of each kernel.
inline constexpr double kExperimentSetupSeconds = 0.05;

struct PriorityConfig {
  int samples = 200;         // short kernels per mode and round, launched one at a time
  int flood_streams = 4;     // streams that each run one flood kernel after another
  int flood_waves = 4;       // each flood kernel: this many times the blocks the whole GPU holds at once
  int flood_block_us = 20;   // how long each flood block holds its slot
  int flood_depth = 6;       // flood kernels kept queued ahead on each flood stream
  int short_blocks = 2;      // blocks of a short kernel
  int short_threads = 128;   // threads per short block
  int short_steps = 1024;    // dependent integer steps per short thread: a few us of work
  int gap_us = 20;           // host pause between one short kernel's end and the next launch
  RepeatPlan plan{2, 10};    // rounds (--warmup, --repeats); each round runs every mode once
  std::uint32_t seed = 1;    // start of the short kernels' sequences
};

// One way of running the short kernels.
struct PriorityMode {
  int short_priority = 0;     // the short kernels' stream priority
  Summary latency;            // event before -> event after, every short kernel of every timed round
  // Medians over the timed rounds; 0 without a flood. Busy: the full flood
  // blocks' spin time over the flood's window times the GPU's flood slots
  // (SMs x flood blocks per SM), i.e. how full the flood kept the GPU.
  double flood_busy = 0.0;
  double flood_blocks_per_ms = 0.0;
};

struct PriorityResult {
  PriorityConfig config;
  int least_priority = 0;     // cudaDeviceGetStreamPriorityRange: the least priority (0, the default)
  int greatest_priority = 0;  // and the greatest (a lower number: -5 on an H200)
  int sm_count = 0;
  int flood_blocks_per_sm = 0;      // cudaOccupancyMaxActiveBlocksPerMultiprocessor of the flood kernel
  int flood_blocks_per_kernel = 0;  // sm_count x flood_blocks_per_sm x flood_waves
  // CUDA_DEVICE_MAX_CONNECTIONS (kDefaultHardwareQueues when unset). With
  // fewer queues than the run's streams (flood_streams + 2) streams share
  // queues, and a short kernel can wait behind a flood kernel queued before
  // it on its own queue, whatever its priority.
  int hardware_queues = kDefaultHardwareQueues;
  PriorityMode idle;                // the short kernels alone on an idle GPU: what they cost without waiting
  PriorityMode same_priority;       // beside the flood, every stream at the default priority
  PriorityMode high_priority;       // beside the flood, the short kernels' stream at the greatest priority
  // Times a flood stream was found with nothing left to run before the short
  // kernels were done (the GPU then had free slots): any makes the latencies
  // no test of priority.
  int flood_gaps = 0;
  bool verified = false;  // every short kernel's output and every flood block's count, every round
  std::string failure;    // the first failed check, when not verified
};

struct ContentionConfig {
  int kernel_us = 100;     // how long every block holds its SM
  int threads = 128;       // per block
  RepeatPlan plan{2, 10};  // each round: both variants, alone and on two streams
};

// One kernel's resources, and its times alone and on two streams at once.
struct ContentionVariant {
  int shared_bytes = 0;   // dynamic shared memory per block
  int blocks_per_sm = 0;  // cudaOccupancyMaxActiveBlocksPerMultiprocessor at that shared memory
  Summary alone;          // one kernel on one stream
  Summary together;       // the same kernel on each of two streams, launched together
};

// 2 x alone / together: ~2 when the two streams' kernels ran side by side,
// ~1 when one waited for the other; 0 when not measured.
double concurrency(const ContentionVariant& variant);

struct ContentionResult {
  ContentionConfig config;
  int sm_count = 0;
  int blocks = 0;                      // per kernel: one per SM, so one kernel alone fills no SM's threads
  int shared_per_sm_bytes = 0;         // cudaDevAttrMaxSharedMemoryPerMultiprocessor
  int shared_per_block_max_bytes = 0;  // cudaDevAttrMaxSharedMemoryPerBlockOptin
  ContentionVariant small;             // no dynamic shared memory
  ContentionVariant large;             // more than half an SM's shared memory per block
  bool verified = false;               // every block of every run wrote its marker
  std::string failure;                 // the first wrong marker, when not verified
};

// --priority-samples N (short kernels per mode and round).
void add_priority_options(StageCli& cli);
// After cli.parse(): PriorityConfig's defaults with --priority-samples, and
// the rounds (--warmup, --repeats) and the seed of the short kernels'
// sequences (--seed) from `options`.
PriorityConfig read_priority_options(const StageCli& cli, const CommonOptions& options);

// Rough seconds each experiment takes as configured, for its estimate: with
// the defaults about 1 s for the priorities (12 rounds of 600 short kernels,
// the 200 at the default priority waiting ~160 us each behind the flood) and
// ~0.06 s for the contention (48 runs of 0.1-0.2 ms, plus set-up). The
// latencies are unknown beforehand: the estimate takes the default-priority
// wait as half the flood kernels queued ahead (one per flood stream), the
// greatest-priority wait as half a flood block.
double priorities_seconds(const PriorityConfig& config);
double contention_seconds(const ContentionConfig& config);

// The two experiments (priorities.cu). Both throw std::invalid_argument for a
// config with a zero or negative size, CudaError for a failed call; a failed
// check is returned (verified false, failure), never thrown.
PriorityResult measure_priorities(const PriorityConfig& config);
ContentionResult measure_contention(const ContentionConfig& config);

}  // namespace csg::pool
