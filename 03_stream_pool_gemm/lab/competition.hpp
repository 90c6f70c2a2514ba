// The second half of the article's claim that streams compete for the hardware: "when kernels of several streams
// together need more registers or shared memory than the GPU has, the hardware queues them by priority". Two
// experiments on spin kernels whose blocks last a known time (the GPU's nanosecond clock), so that what changes
// between runs is only who waits for an SM:
//
//   priorities: a flood of long kernels on several streams keeps every SM full; beside it a stream of short
//               kernels, launched one at a time, each timed "queued to done" by events on its stream. Beside
//               the flood at the default priority, then at the greatest the device offers, and alone on an
//               idle GPU. No running block is preempted: a high-priority kernel takes the first slot a flood
//               block frees (within 20 us), while at the default priority it queues behind every pending
//               flood block ready before it (~320 us). Copies are not affected by priority (it orders kernel
//               blocks only): only kernels are measured.
//   contention: two streams, each launching one kernel of one block per SM that holds its SM for a fixed
//               time. With little shared memory per block both kernels fit on an SM together (concurrency =
//               2 x alone / together ~ 2); with more than half an SM's, the second waits (~ 1). Shared memory
//               rather than registers because its size is set exactly at launch.
//
// Every kernel's output is checked, outputs poisoned before every run. The types here are plain numbers, so
// the reports and their CPU tests need no GPU; measure_priorities and measure_contention (competition.cpp,
// their kernels in competition.cu) need a device already selected.
#pragma once

#include "03_stream_pool_gemm/lab/competition_kernels.hpp"
#include "experiment/lab.hpp"

namespace csg::pool {

// The driver's hardware work queues when CUDA_DEVICE_MAX_CONNECTIONS is unset.
inline constexpr int kDefaultHardwareQueues = 8;

// --priority-samples at most: 100,000 short kernels per mode and round take minutes.
inline constexpr long long kMaxPrioritySamples = 100000;

// --flood-waves and --flood-depth at most: beyond these a flooded run's fill
// and drain alone take seconds.
inline constexpr long long kMaxFloodWaves = 64;
inline constexpr long long kMaxFloodDepth = 64;

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

// What every flooded experiment reads from the device.
struct FloodDevice {
  int least_priority = 0;     // cudaDeviceGetStreamPriorityRange: the least priority (0, the default)
  int greatest_priority = 0;  // and the greatest (a lower number: -5 on an H200)
  int sm_count = 0;
  int flood_blocks_per_sm = 0;  // cudaOccupancyMaxActiveBlocksPerMultiprocessor of the flood kernel
  // CUDA_DEVICE_MAX_CONNECTIONS (kDefaultHardwareQueues when unset). With fewer queues than the run's
  // streams, a short kernel can wait behind a flood kernel on its own queue, whatever its priority.
  int hardware_queues = kDefaultHardwareQueues;
};

// What every flooded run (priorities, graph-priorities, partition) holds beside its ways.
struct FloodRun {
  FloodDevice device;
  // Times a flood stream was found with nothing left to run before the short
  // kernels were done (the GPU then had free slots): any makes the latencies
  // no test of priority.
  int flood_gaps = 0;
  bool verified = false;  // every short kernel's output and every flood block's count, every round
  std::string failure;    // the first failed check, when not verified
};

struct PriorityResult : FloodRun {
  PriorityConfig config;
  int flood_blocks_per_kernel = 0;  // sm_count x flood_blocks_per_sm x flood_waves
  PriorityMode idle;                // the short kernels alone on an idle GPU: what they cost without waiting
  PriorityMode same_priority;       // beside the flood, every stream at the default priority
  PriorityMode high_priority;       // beside the flood, the short kernels' stream at the greatest priority
};

// ---- short kernels beside a flood: what priorities, graph-priorities and partition share ----

// The flood: `config.flood_streams` streams, each running one flood kernel
// after another, kept `config.flood_depth` kernels ahead of the GPU. On one
// stream a kernel starts only when the one before it has finished, so at
// any moment each stream has at most one kernel whose blocks wait for
// slots; a short kernel at the default priority queues behind those. Each
// kernel holds `sms` SMs' worth of blocks, flood_waves times over: the whole
// GPU, or the SMs of a partition when its streams are a green context's.
class Flood {
 public:
  // `streams` empty: its own, created at the default priority.
  Flood(const PriorityConfig& config, int sms, int blocks_per_sm, std::vector<cudaStream_t> streams = {});
  // Counters and stop flag to zero, on `stream`, and waits for it.
  void reset(cudaStream_t stream);
  // Every flood stream starts from one event (the window's start), filled to
  // `depth` kernels; returns once the first kernel has finished, the GPU full.
  void start();
  // Between short kernels: a stream whose kernels have all finished ran dry
  // (nothing is queued between two top-ups, so it is still dry now); then
  // every stream is filled to `depth` again.
  void top_up();
  // After the last short kernel, on its stream: sets the stop flag, so the
  // blocks still queued end at once, and records the window's end. Waits for
  // the flood to drain.
  void stop(cudaStream_t stream);
  // After stop(): checks every stream's counters against what was launched
  // there. A stream with no skipped block ran dry before the stop: a gap too.
  // Busy: the full blocks' spin time over the window times the flood's slots.
  struct Outcome {
    double busy = 0.0;
    double blocks_per_ms = 0.0;
    int gaps = 0;
    std::string failure;  // empty: every block accounted for
  };
  Outcome outcome();

 private:
  cudaEvent_t ring_event(std::size_t s, int kernel) const;
  // Queues kernels on stream `s` until `depth` are unfinished. A kernel's
  // event slot is reused only once that kernel has finished.
  void fill(std::size_t s);

  PriorityConfig config_;
  int slots_;   // sms x blocks_per_sm: the blocks the flood holds at once
  int blocks_;  // per kernel: slots x flood_waves
  unsigned long long hold_ns_;
  DeviceBuffer<FloodCounters> counters_;
  DeviceBuffer<int> stop_;
  std::vector<Stream> owned_;
  std::vector<cudaStream_t> streams_;
  std::vector<std::vector<Event>> done_;  // per stream, one event per queued kernel (a ring)
  std::vector<int> issued_;
  std::vector<int> completed_;
  int gaps_ = 0;
  Event start_;
  Event stopped_;
};

// One way of running the short kernels: on `stream` (their events too),
// beside `flood` or alone on an idle GPU, each launched by `launch` (empty:
// the kernel itself, on `stream`; a graph way launches that sample's graph).
struct ShortWay {
  cudaStream_t stream = nullptr;
  Flood* flood = nullptr;
  std::function<void(int sample)> launch;
};

// The short kernels, their output (poisoned before every run, every
// thread's value checked after it) and their events.
class ShortKernels {
 public:
  explicit ShortKernels(const PriorityConfig& config);
  // Enqueues short kernel `sample` on `stream`; the caller checks the launch.
  void launch(int sample, cudaStream_t stream);
  // Every round runs each way once: first the idle ones, then the flooded
  // ones in an order that rotates by one each round, so a drift of the
  // machine falls on every way alike. Each short kernel: event, kernel (or
  // graph), event, wait, pause, so each finds an empty stream and its
  // events time only its own wait and run. Returns a mode per way, in the
  // ways' order (short_priority left for the caller); the checks go to `checks`.
  std::vector<PriorityMode> run(std::span<const ShortWay> ways, FloodRun& checks);

 private:
  struct WayRun {
    std::vector<Millis> latencies;
    Flood::Outcome flood;
    std::string failure;
  };
  WayRun run_way(const ShortWay& way);

  PriorityConfig config_;
  int threads_per_sample_;
  DeviceBuffer<std::uint32_t> device_out_;
  std::vector<std::uint32_t> host_out_;
  std::vector<Event> before_;
  std::vector<Event> after_;
  // short_steps steps of the sequence as one affine map: x -> mul·x + add (mod 2^32)
  std::uint32_t steps_mul_ = 1;
  std::uint32_t steps_add_ = 0;
};

FloodDevice query_flood_device();

// Throws std::invalid_argument for a config with a zero or negative size,
// or a flood too shallow to tell a stream that ran dry.
void require_valid(const PriorityConfig& config);

// The nearest-rank 99th percentile of a summary's samples (0 for none).
double p99_ms(const Summary& summary);

// Rough seconds of `idle` ways alone, `queued` ways beside the flood that
// wait behind it (the default priority) and `preferred` ways that wait about
// half a flood block (a greater priority, a partition of their own).
double beside_flood_seconds(const PriorityConfig& config, int idle, int queued, int preferred);

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

// --priority-samples N (short kernels per mode and round, at most `most`),
// --flood-waves and --flood-depth (the flood kernels' length and queue).
void add_priority_options(StageCli& cli, long long most = kMaxPrioritySamples);
// After cli.parse(): PriorityConfig's defaults with those three, and
// the rounds (--warmup, --repeats) and the seed of the short kernels'
// sequences (--seed) from `options`.
PriorityConfig read_priority_options(const StageCli& cli, CommonOptions& options);

// Rough seconds each experiment takes as configured, for its estimate: with the defaults about 1 s for the
// priorities (beside_flood_seconds) and ~0.06 s for the contention (48 runs of 0.1-0.2 ms, plus set-up).
double priorities_seconds(const PriorityConfig& config);
double contention_seconds(const ContentionConfig& config);

// The two experiments (competition.cpp). Both throw std::invalid_argument for a
// config with a zero or negative size, CudaError for a failed call; a failed
// check is returned (verified false, failure), never thrown.
PriorityResult measure_priorities(const PriorityConfig& config);
ContentionResult measure_contention(const ContentionConfig& config);

// ---- what both reports share ----------------------------------------------------------

// The shared flags of both subcommands: no GEMM workload (spin kernels of
// known length), no host memory choice.
CommonDefaults competition_defaults();
// `round_us` of work in every round of `plan` (warm-up or timed), plus setting up.
double competition_seconds(const RepeatPlan& plan, double round_us);
// Microseconds with one decimal.
std::string us(double ms);
// A summary as summary_json (report/result.hpp), with its nearest-rank 99th percentile ("p99_ms").
nlohmann::json latency_json(const Summary& summary);
// What a flooded run allocates: every short kernel's output, on the device
// and copied back; "try fewer --priority-samples" to ask for less.
Needs short_kernel_needs(const PriorityConfig& config);
// A flooded table's cell: the flood's blocks/ms and, against `reference`
// (blocks/ms beside the default priority), their ratio: "48493 (0.94x)".
std::string flood_blocks_text(double blocks_per_ms, double reference);
// null when verified, else the failure ("verification failed" when unnamed).
nlohmann::json failure_json(bool verified, const std::string& failure);
// What every flooded run's JSON holds: its name, config, the device's figures and the checks.
nlohmann::json flood_run_json(const char* name, const PriorityConfig& config, const FloodRun& run);
// One way of a flooded run: its latency (summary_json or latency_json) and, where `flooded`, the flood's figures.
nlohmann::json flood_way_json(const PriorityMode& mode, bool flooded, nlohmann::json latency);
// The result's verification: `runs` runs, each checked (`what`), and the first failure.
void verify_runs(StageResult& result, bool verified, const std::string& failure, int runs, const std::string& what);
// The end of a flooded report: the result's config (`config`'s samples, rounds and seed), its verification
// (`ways` runs a round, each checked in full), and `figures` with `conclusion` as the section `name`.
void finish_flood_report(Report& report, const PriorityConfig& config, const FloodRun& run, int ways,
                         const char* name, nlohmann::json figures, const std::string& conclusion);

// ---- the checks and the judge every flooded comparison shares ----------------------------

// The short kernels' median latencies at the two priorities within this
// fraction of each other are called equal: priority made no difference.
inline constexpr double kPriorityWithin = 0.10;
// Below this share of the GPU's block slots kept busy by the flood (at the
// default priority) the GPU was not full: short kernels found free slots at
// any priority, and the run says nothing about priorities.
inline constexpr double kFloodFull = 0.75;

enum class PriorityVerdict {
  not_verified,   // a check failed: no conclusion
  flood_gaps,     // a flood stream ran dry during the run: no conclusion
  one_level,      // the device offers a single priority: nothing to compare
  gpu_not_full,   // the flood kept too few slots busy: no conclusion
  helps,          // greatest priority cut the median latency by more than kPriorityWithin
  no_difference,  // within kPriorityWithin: the claim does not hold here
  worse,          // greatest priority made the median latency worse: the claim does not hold here
};
std::string_view to_string(PriorityVerdict verdict);
// What every comparison of latencies beside the flood checks first: the
// run verified, no flood stream ran dry, two priority levels (where the
// comparison needs them), the GPU full (`flood_busy`, the flood's share
// beside the default priority). The first check that fails, else `speedup`
// (the median latency of the way expected slower over the other's) against
// kPriorityWithin: helps, no_difference or worse.
PriorityVerdict judge_latency(const FloodRun& run, double flood_busy, double speedup, bool needs_two_levels = true);
// The sentence of a failed check: "no conclusion about <subject>: ..."; empty for the other outcomes.
std::string failed_check_sentence(PriorityVerdict failed, const FloodRun& run, double flood_busy,
                                  const std::string& subject);

// ---- the priorities' verdicts and report (priorities/priorities.cpp) ---------------------

PriorityVerdict judge_priorities(const PriorityResult& result);
// The median latency at the default priority over the one at the greatest
// (above 1: priority helped); 0 when not measured.
double priority_speedup(const PriorityResult& result);
// "priorities.latency": the outcome judge_priorities' branch, its figures
// the latencies, the flood's share busy and the speed-up.
Verdict priorities_verdict(const PriorityResult& result);
// "priorities.flood_cost": the flood's throughput beside the high-priority
// stream against beside the default one (time per block within
// kEqualWithin: "same"; "slower": what priority cost the long kernels;
// "faster"); nothing where the latencies were not compared.
std::optional<Verdict> flood_cost_verdict(const PriorityResult& result);

// The table, the verdicts, the checks and the JSON ("stream_priorities"): priorities/priorities.cpp.
void report_priorities(const PriorityConfig& config, const PriorityResult& result, Report& report);

// ---- the contention's verdict and report (contention/contention.cpp) ---------------------

// Concurrency (2 x alone / together) at or above kSideBySide: the two
// streams' kernels ran side by side; at or below kSerialised: one after the
// other; between: partly overlapped.
inline constexpr double kSideBySide = 1.7;
inline constexpr double kSerialised = 1.3;

enum class Overlap { side_by_side, partly, serialised };
Overlap classify_concurrency(double concurrency);

enum class ContentionVerdict {
  not_verified,    // a check failed: no conclusion
  not_exclusive,   // the large kernel still fits two or more blocks per SM: no limit to show
  no_concurrency,  // even the small kernels did not run side by side: something else serialised them
  holds,           // small side by side, large one after the other: the claim holds
  partly,          // small side by side, large partly overlapped
  not_seen,        // large side by side too: the claim does not hold here
};
std::string_view to_string(ContentionVerdict verdict);
ContentionVerdict judge_contention(const ContentionResult& result);
// "contention.shared_memory": the outcome judge_contention's branch, its
// figures both concurrencies and the large kernel's blocks per SM.
Verdict contention_verdict(const ContentionResult& result);

// The table, the verdict, the checks and the JSON ("shared_memory_contention"): contention/contention.cpp.
void report_contention(const ContentionConfig& config, const ContentionResult& result, Report& report);

}  // namespace csg::pool
