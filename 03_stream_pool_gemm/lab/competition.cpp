// What the priorities and contention reports share, and the two experiments
// of competition.hpp: the flood that keeps every SM full, the short kernels
// timed beside it, and the two streams competing for shared memory (their
// kernels in competition.cu).
#include "03_stream_pool_gemm/lab/competition.hpp"

#include "03_stream_pool_gemm/lab/competition_kernels.hpp"
#include "experiment/lab.hpp"

namespace csg::pool {

CommonDefaults competition_defaults() {
  CommonDefaults defaults;
  defaults.gemm_workload = false;
  defaults.host_memory_choice = false;
  return defaults;
}

double competition_seconds(const RepeatPlan& plan, double round_us) {
  return kExperimentSetupSeconds + (plan.warmup + plan.repeats) * round_us * 1e-6;
}

std::string us(double ms) { return fixed(ms * 1e3, 1); }

nlohmann::json summary_json(const Summary& s) {
  return {{"median_ms", s.median_ms}, {"min_ms", s.min_ms}, {"max_ms", s.max_ms}, {"p95_ms", s.p95_ms},
          {"samples", s.samples}};
}

nlohmann::json failure_json(bool verified, const std::string& failure) {
  return verified ? nlohmann::json(nullptr) : nlohmann::json(failure.empty() ? "verification failed" : failure);
}

void verify_runs(StageResult& result, bool verified, const std::string& failure, int runs, const std::string& what) {
  result.verification.passed = verified;
  result.verification.batches_checked = runs;
  result.verification.checked = "run";
  result.verification.method = what;
  result.verification.failure = verified ? "" : failure.empty() ? "a check failed" : failure;
}

namespace {

// Outputs are filled with this byte before every run: 0xFFFFFFFF per word,
// never a block marker (block index + 1), and a short kernel's expected
// value only by a 1-in-2^32 chance per word.
constexpr int kPoisonByte = 0xFF;
// Shared memory per block above which a kernel must opt in (cudaFuncSetAttribute).
constexpr int kDefaultSharedLimitBytes = 48 * 1024;
// The large contention kernel asks for half an SM's shared memory plus this,
// so that two of its blocks never fit on one SM (the runtime also reserves
// 1 KiB per block, cudaDevAttrReservedSharedMemoryPerBlock).
constexpr int kLargeSharedMarginBytes = 4 * 1024;

// x -> mul·x + add (mod 2^32): `steps` steps of the sequence at once.
struct Affine {
  std::uint32_t mul = 1;
  std::uint32_t add = 0;
};

Affine sequence_steps(int steps) {
  Affine f;
  for (int i = 0; i < steps; ++i) {
    f.mul = f.mul * kLcgMultiplier;
    f.add = f.add * kLcgMultiplier + kLcgIncrement;
  }
  return f;
}

// cudaEventQuery without the error: true when done, false while pending.
// NotReady is also left as the "last error", where the next launch's check
// would find it: it is cleared here.
bool event_done(cudaEvent_t event) {
  const cudaError_t status = cudaEventQuery(event);
  if (status == cudaErrorNotReady) {
    static_cast<void>(cudaGetLastError());
    return false;
  }
  CUDA_CHECK(status);
  return true;
}

double median_of(std::vector<double> values) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

void busy_wait(double us) {
  const HostTimer pause;
  while (pause.elapsed() < Millis(us * 1e-3)) {
  }
}

void require(bool condition, const char* what) {
  if (!condition) throw std::invalid_argument(what);
}

// The flood: `streams` streams, each running one flood kernel after another,
// kept `depth` kernels ahead of the GPU by top_up(). On one stream a kernel
// starts only when the one before it has finished, so at any moment each
// stream has at most one kernel whose blocks wait for slots; a short kernel
// at the default priority queues behind those.
class Flood {
 public:
  Flood(const PriorityConfig& config, int blocks_per_kernel)
      : config_(config),
        blocks_(blocks_per_kernel),
        hold_ns_(static_cast<unsigned long long>(config.flood_block_us) * 1000ull),
        counters_(static_cast<std::size_t>(config.flood_streams)),
        stop_(1),
        issued_(static_cast<std::size_t>(config.flood_streams)),
        completed_(static_cast<std::size_t>(config.flood_streams)) {
    streams_.reserve(counters_.size());
    done_.resize(counters_.size());
    for (std::size_t s = 0; s < counters_.size(); ++s) {
      streams_.emplace_back(cudaStreamNonBlocking, 0);  // the default priority, in both modes
      for (int k = 0; k < config.flood_depth; ++k) done_[s].emplace_back(cudaEventDisableTiming);
    }
  }

  // Counters and stop flag to zero, on `stream`, and waits for it.
  void reset(cudaStream_t stream) {
    CUDA_CHECK(cudaMemsetAsync(counters_.data(), 0, counters_.bytes(), stream));
    CUDA_CHECK(cudaMemsetAsync(stop_.data(), 0, stop_.bytes(), stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::fill(issued_.begin(), issued_.end(), 0);
    std::fill(completed_.begin(), completed_.end(), 0);
    gaps_ = 0;
  }

  // Every flood stream starts from one event (the window's start), filled to
  // `depth` kernels; returns once the first kernel has finished, the GPU full.
  void start() {
    CUDA_CHECK(cudaEventRecord(start_.get(), streams_[0].get()));
    for (std::size_t s = 1; s < streams_.size(); ++s) {
      CUDA_CHECK(cudaStreamWaitEvent(streams_[s].get(), start_.get(), 0));
    }
    for (std::size_t s = 0; s < streams_.size(); ++s) fill(s);
    CUDA_CHECK(cudaEventSynchronize(done_[0][0].get()));
  }

  // Between short kernels: a stream whose kernels have all finished ran dry
  // (nothing is queued between two top-ups, so it is still dry now); then
  // every stream is filled to `depth` again.
  void top_up() {
    for (std::size_t s = 0; s < streams_.size(); ++s) {
      while (completed_[s] < issued_[s] && event_done(ring_event(s, completed_[s]))) ++completed_[s];
      if (completed_[s] == issued_[s]) ++gaps_;
      fill(s);
    }
  }

  // After the last short kernel, on its stream: sets the stop flag, so the
  // blocks still queued end at once, and records the window's end. Waits for
  // the flood to drain.
  void stop(cudaStream_t stream) {
    launch_stop_flood(stream, stop_.data());
    CUDA_CHECK_LAUNCH("stop_flood");
    CUDA_CHECK(cudaEventRecord(stopped_.get(), stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    for (const Stream& flood : streams_) CUDA_CHECK(cudaStreamSynchronize(flood.get()));
  }

  // After stop(): checks every stream's counters against what was launched
  // there. A stream with no skipped block ran dry before the stop: a gap too.
  struct Outcome {
    double busy = 0.0;
    double blocks_per_ms = 0.0;
    int gaps = 0;
    std::string failure;  // empty: every block accounted for
  };
  Outcome outcome(int slots) {
    std::vector<FloodCounters> counts(counters_.size());
    CUDA_CHECK(cudaMemcpyAsync(counts.data(), counters_.data(), counters_.bytes(), cudaMemcpyDeviceToHost,
                               streams_[0].get()));
    CUDA_CHECK(cudaStreamSynchronize(streams_[0].get()));
    Outcome o;
    o.gaps = gaps_;
    const unsigned long long blocks = static_cast<unsigned long long>(blocks_);
    unsigned long long full = 0;
    for (std::size_t s = 0; s < counts.size(); ++s) {
      const FloodCounters& c = counts[s];
      const unsigned long long launched = static_cast<unsigned long long>(issued_[s]) * blocks;
      const unsigned long long index_sum = static_cast<unsigned long long>(issued_[s]) * (blocks * (blocks + 1) / 2);
      if (o.failure.empty() && (c.full + c.skipped != launched || c.index_sum != index_sum)) {
        o.failure = "flood stream " + std::to_string(s) + ": " +
                    plural(static_cast<long long>(c.full + c.skipped), "block") + " counted (index sum " + std::to_string(c.index_sum) + "), " + std::to_string(launched) +
                    " launched (index sum " + std::to_string(index_sum) + ")";
      }
      if (c.skipped == 0) ++o.gaps;
      full += c.full;
    }
    const double window_ms = elapsed_between(start_.get(), stopped_.get()).count();
    if (window_ms > 0.0 && slots > 0) {
      o.busy = double(full) * config_.flood_block_us * 1e-3 / (window_ms * slots);
      o.blocks_per_ms = double(full) / window_ms;
    }
    return o;
  }

 private:
  cudaEvent_t ring_event(std::size_t s, int kernel) const {
    return done_[s][static_cast<std::size_t>(kernel % config_.flood_depth)].get();
  }
  // Queues kernels on stream `s` until `depth` are unfinished. A kernel's
  // event slot is reused only once that kernel has finished.
  void fill(std::size_t s) {
    while (issued_[s] - completed_[s] < config_.flood_depth) {
      launch_flood(blocks_, streams_[s].get(), hold_ns_, stop_.data(), counters_.data() + s);
      CUDA_CHECK_LAUNCH("flood_kernel");
      CUDA_CHECK(cudaEventRecord(ring_event(s, issued_[s]), streams_[s].get()));
      ++issued_[s];
    }
  }

  PriorityConfig config_;
  int blocks_;
  unsigned long long hold_ns_;
  DeviceBuffer<FloodCounters> counters_;
  DeviceBuffer<int> stop_;
  std::vector<Stream> streams_;
  std::vector<std::vector<Event>> done_;  // per stream, one event per queued kernel (a ring)
  std::vector<int> issued_;
  std::vector<int> completed_;
  int gaps_ = 0;
  Event start_;
  Event stopped_;
};

}  // namespace

PriorityResult measure_priorities(const PriorityConfig& config) {
  require(config.samples > 0 && config.flood_streams > 0 && config.flood_waves > 0 && config.flood_block_us > 0 &&
              config.short_blocks > 0 && config.short_threads > 0 && config.short_steps > 0 && config.gap_us >= 0 &&
              config.plan.warmup >= 0 && config.plan.repeats > 0,
          "measure_priorities: every size must be positive");
  // Two queued kernels at least: the stop must find one still queued on each
  // stream for the check that no stream ran dry.
  require(config.flood_depth >= 2, "measure_priorities: flood_depth must be 2 or more");

  PriorityResult result;
  result.config = config;
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&result.least_priority, &result.greatest_priority));
  CUDA_CHECK(cudaDeviceGetAttribute(&result.sm_count, cudaDevAttrMultiProcessorCount, device));
  CUDA_CHECK(flood_blocks_per_sm(&result.flood_blocks_per_sm));
  if (result.flood_blocks_per_sm < 1) throw std::runtime_error("measure_priorities: the flood kernel fits no SM");
  result.flood_blocks_per_kernel = result.sm_count * result.flood_blocks_per_sm * config.flood_waves;
  const int slots = result.sm_count * result.flood_blocks_per_sm;
  result.hardware_queues = max_connections_env().value_or(kDefaultHardwareQueues);

  Flood flood(config, result.flood_blocks_per_kernel);
  // The short kernels' two streams: the default priority, and the greatest.
  // Stream's constructor is cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, priority).
  const Stream same_stream(cudaStreamNonBlocking, 0);
  const Stream high_stream(cudaStreamNonBlocking, result.greatest_priority);

  const int threads_per_sample = config.short_blocks * config.short_threads;
  const std::size_t outputs = static_cast<std::size_t>(config.samples) * static_cast<std::size_t>(threads_per_sample);
  DeviceBuffer<std::uint32_t> device_out(outputs);
  std::vector<std::uint32_t> host_out(outputs);
  std::vector<Event> before(static_cast<std::size_t>(config.samples));
  std::vector<Event> after(static_cast<std::size_t>(config.samples));
  const Affine steps = sequence_steps(config.short_steps);

  enum class Mode { idle, same, high };
  struct ModeRun {
    std::vector<Millis> latencies;
    Flood::Outcome flood;
    std::string failure;  // the flood's, or the first wrong short kernel output
  };
  // One run: the flood (except when idle), then every short kernel one at a
  // time: event, kernel, event, wait for it, pause, so each one finds an
  // empty stream and its events time only its own wait and run.
  auto run_mode = [&](Mode mode) {
    const cudaStream_t stream = mode == Mode::high ? high_stream.get() : same_stream.get();
    CUDA_CHECK(cudaMemsetAsync(device_out.data(), kPoisonByte, device_out.bytes(), stream));
    flood.reset(stream);
    if (mode != Mode::idle) flood.start();
    for (int i = 0; i < config.samples; ++i) {
      const auto sample = static_cast<std::size_t>(i);
      if (mode != Mode::idle) flood.top_up();
      CUDA_CHECK(cudaEventRecord(before[sample].get(), stream));
      launch_short(config.short_blocks, config.short_threads, stream,
                   device_out.data() + sample * static_cast<std::size_t>(threads_per_sample), std::uint32_t(i),
                   config.short_steps, config.seed);
      CUDA_CHECK_LAUNCH("short_kernel");
      CUDA_CHECK(cudaEventRecord(after[sample].get(), stream));
      CUDA_CHECK(cudaEventSynchronize(after[sample].get()));
      busy_wait(config.gap_us);
    }
    ModeRun run;
    if (mode != Mode::idle) {
      flood.stop(stream);
      run.flood = flood.outcome(slots);
      run.failure = run.flood.failure;
    }
    for (int i = 0; i < config.samples; ++i) {
      const auto sample = static_cast<std::size_t>(i);
      run.latencies.push_back(elapsed_between(before[sample].get(), after[sample].get()));
    }
    CUDA_CHECK(cudaMemcpyAsync(host_out.data(), device_out.data(), device_out.bytes(), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    for (std::size_t k = 0; k < outputs && run.failure.empty(); ++k) {
      const auto sample = static_cast<std::uint32_t>(k / static_cast<std::size_t>(threads_per_sample));
      const auto thread = static_cast<std::uint32_t>(k % static_cast<std::size_t>(threads_per_sample));
      const std::uint32_t expected = steps.mul * short_start(sample, thread, config.seed) + steps.add;
      if (host_out[k] != expected) {
        run.failure = "short kernel " + std::to_string(sample) + ", thread " + std::to_string(thread) +
                      ": expected " + std::to_string(expected) + ", got " + std::to_string(host_out[k]);
      }
    }
    return run;
  };

  struct Gathered {
    std::vector<Millis> latencies;
    std::vector<double> busy;
    std::vector<double> blocks_per_ms;
  };
  Gathered gathered[3];  // by Mode
  result.verified = true;
  const int rounds = config.plan.warmup + config.plan.repeats;
  for (int round = 0; round < rounds; ++round) {
    // Alternate the two flooded modes' order, so a drift of the machine falls on both alike.
    const Mode flooded[2] = {round % 2 == 0 ? Mode::same : Mode::high, round % 2 == 0 ? Mode::high : Mode::same};
    for (Mode mode : {Mode::idle, flooded[0], flooded[1]}) {
      const ModeRun run = run_mode(mode);
      if (!run.failure.empty() && result.verified) {
        result.verified = false;
        result.failure = run.failure;
      }
      if (round < config.plan.warmup) continue;
      Gathered& into = gathered[static_cast<int>(mode)];
      into.latencies.insert(into.latencies.end(), run.latencies.begin(), run.latencies.end());
      if (mode != Mode::idle) {
        into.busy.push_back(run.flood.busy);
        into.blocks_per_ms.push_back(run.flood.blocks_per_ms);
        result.flood_gaps += run.flood.gaps;
      }
    }
    throw_if_interrupted("priorities round " + std::to_string(round + 1) + " of " + std::to_string(rounds));
  }
  result.high_priority.short_priority = result.greatest_priority;
  PriorityMode* modes[] = {&result.idle, &result.same_priority, &result.high_priority};  // by Mode
  for (int m = 0; m < 3; ++m) {
    modes[m]->latency = summarize(std::move(gathered[m].latencies));
    modes[m]->flood_busy = median_of(gathered[m].busy);
    modes[m]->flood_blocks_per_ms = median_of(gathered[m].blocks_per_ms);
  }
  return result;
}

ContentionResult measure_contention(const ContentionConfig& config) {
  require(config.kernel_us > 0 && config.threads > 0 && config.plan.warmup >= 0 && config.plan.repeats > 0,
          "measure_contention: every size must be positive");
  ContentionResult result;
  result.config = config;
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&result.sm_count, cudaDevAttrMultiProcessorCount, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&result.shared_per_sm_bytes, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&result.shared_per_block_max_bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin,
                                    device));
  // One block per SM: alone, a kernel fills every SM's threads only partly
  // (128 of 2048 on an H200), so whatever keeps a second kernel's blocks off
  // an SM is the per-block resource, not the block count.
  result.blocks = result.sm_count;
  result.small.shared_bytes = 0;
  // More than half an SM's shared memory (118 KiB of 228 KiB on an H200):
  // a second block of either kernel can't fit beside the first.
  const int large_bytes = (result.shared_per_sm_bytes / 2 + kLargeSharedMarginBytes) / 1024 * 1024;
  result.large.shared_bytes = std::min(large_bytes, result.shared_per_block_max_bytes);
  // Above 48 KiB a kernel must opt in; once, before the occupancy query and any launch.
  if (result.large.shared_bytes > kDefaultSharedLimitBytes) {
    CUDA_CHECK(allow_hold_shared(result.large.shared_bytes));
  }
  for (ContentionVariant* variant : {&result.small, &result.large}) {
    CUDA_CHECK(hold_blocks_per_sm(&variant->blocks_per_sm, config.threads, variant->shared_bytes));
    if (variant->blocks_per_sm < 1) throw std::runtime_error("measure_contention: a hold kernel fits no SM");
  }

  const Stream first(cudaStreamNonBlocking);
  const Stream second(cudaStreamNonBlocking);
  const auto blocks = static_cast<std::size_t>(result.blocks);
  DeviceBuffer<std::uint32_t> markers(2 * blocks);
  std::vector<std::uint32_t> host_markers(2 * blocks);
  const unsigned long long hold_ns = static_cast<unsigned long long>(config.kernel_us) * 1000ull;

  // Every run is checked: the next run's prepare (and the end) first reads
  // back what the last run wrote, then poisons the markers again.
  int pending_kernels = 0;  // kernels of the last run, not yet checked
  result.verified = true;
  auto check_pending = [&] {
    if (pending_kernels == 0) return;
    CUDA_CHECK(cudaMemcpyAsync(host_markers.data(), markers.data(), markers.bytes(), cudaMemcpyDeviceToHost,
                               first.get()));
    CUDA_CHECK(cudaStreamSynchronize(first.get()));
    for (std::size_t i = 0; i < blocks * static_cast<std::size_t>(pending_kernels) && result.verified; ++i) {
      const std::uint32_t expected = std::uint32_t(i % blocks) + 1u;
      if (host_markers[i] != expected) {
        result.verified = false;
        result.failure = "contention kernel " + std::to_string(i / blocks) + ", block " + std::to_string(i % blocks) +
                         ": marker " + std::to_string(host_markers[i]) + ", expected " + std::to_string(expected);
      }
    }
    pending_kernels = 0;
  };
  auto prepare = [&] {
    check_pending();
    CUDA_CHECK(cudaMemsetAsync(markers.data(), kPoisonByte, markers.bytes(), first.get()));
  };
  auto launch = [&](const ContentionVariant& variant, cudaStream_t stream, std::uint32_t* out) {
    launch_hold(result.blocks, config.threads, variant.shared_bytes, stream, hold_ns, out);
    CUDA_CHECK_LAUNCH("hold_kernel");
  };
  EventTimer timer;
  auto alone = [&](const ContentionVariant& variant) {
    return [&, variant] {
      timer.start(first.get());
      launch(variant, first.get(), markers.data());
      pending_kernels = 1;
      return timer.stop();
    };
  };
  // Both streams start from the timer's one event, and the stop waits for both.
  auto together = [&](const ContentionVariant& variant) {
    return [&, variant] {
      timer.start(first.get(), {second.get()});
      launch(variant, first.get(), markers.data());
      launch(variant, second.get(), markers.data() + blocks);
      pending_kernels = 2;
      return timer.stop();
    };
  };
  const std::vector<TimedVariant> variants = {
      {.prepare = prepare, .run = alone(result.small), .after_last = nullptr},
      {.prepare = prepare, .run = together(result.small), .after_last = nullptr},
      {.prepare = prepare, .run = alone(result.large), .after_last = nullptr},
      {.prepare = prepare, .run = together(result.large), .after_last = nullptr},
  };
  measure_interleaved_into(config.plan, variants,
                           {&result.small.alone, &result.small.together, &result.large.alone, &result.large.together});
  check_pending();
  return result;
}

}  // namespace csg::pool
