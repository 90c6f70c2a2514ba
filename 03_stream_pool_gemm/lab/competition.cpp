// What the priorities and contention reports share, and the two experiments
// of competition.hpp: the flood that keeps every SM full, the short kernels
// timed beside it, and the two streams competing for shared memory (their
// kernels in competition.cu).
#include "03_stream_pool_gemm/lab/competition.hpp"

#include "03_stream_pool_gemm/lab/competition_kernels.hpp"
#include "experiment/lab.hpp"

namespace csg::pool {

CommonDefaults competition_defaults() {
  return {.gemm_workload = false, .host_memory_choice = false};
}

double competition_seconds(const RepeatPlan& plan, double round_us) {
  return kExperimentSetupSeconds + (plan.warmup + plan.repeats) * round_us * 1e-6;
}

std::string us(double ms) { return fixed(ms * 1e3, 1); }

nlohmann::json latency_json(const Summary& s) {
  nlohmann::json doc = summary_json(s);
  doc["p99_ms"] = p99_ms(s);
  return doc;
}

Needs short_kernel_needs(const PriorityConfig& config) {
  const std::uint64_t output_bytes = std::uint64_t(config.samples) * std::uint64_t(config.short_blocks) *
                                     std::uint64_t(config.short_threads) * sizeof(std::uint32_t);
  return {{.device_bytes = output_bytes, .host_bytes = output_bytes, .host_kind = HostMemory::pageable},
          "try fewer --priority-samples"};
}

std::string flood_blocks_text(double blocks_per_ms, double reference) {
  return fixed(blocks_per_ms, 0) + (reference > 0.0 ? " (" + fixed(blocks_per_ms / reference, 2) + "x)" : "");
}

nlohmann::json failure_json(bool verified, const std::string& failure) {
  return verified ? nlohmann::json(nullptr) : nlohmann::json(failure.empty() ? "verification failed" : failure);
}

nlohmann::json flood_run_json(const char* name, const PriorityConfig& config, const FloodRun& run) {
  return {{"name", name},
          // The short kernels' and the flood's sizes and the rounds.
          {"config",
           {{"samples", config.samples},
            {"flood_streams", config.flood_streams},
            {"flood_waves", config.flood_waves},
            {"flood_block_us", config.flood_block_us},
            {"flood_depth", config.flood_depth},
            {"flood_threads_per_block", kFloodThreads},
            {"short_blocks", config.short_blocks},
            {"short_threads", config.short_threads},
            {"short_steps", config.short_steps},
            {"gap_us", config.gap_us},
            {"warmup", config.plan.warmup},
            {"repeats", config.plan.repeats}}},
          {"priority_range", {{"least", run.device.least_priority}, {"greatest", run.device.greatest_priority}}},
          {"sm_count", run.device.sm_count},
          {"flood_blocks_per_sm", run.device.flood_blocks_per_sm},
          {"flood_gaps", run.flood_gaps},
          {"verified", run.verified},
          {"failure", failure_json(run.verified, run.failure)}};
}

nlohmann::json flood_way_json(const PriorityMode& mode, bool flooded, nlohmann::json latency) {
  return {{"latency", std::move(latency)},
          {"flood_busy", flooded ? nlohmann::json(mode.flood_busy) : nlohmann::json(nullptr)},
          {"flood_blocks_per_ms", flooded ? nlohmann::json(mode.flood_blocks_per_ms) : nlohmann::json(nullptr)}};
}

void finish_flood_report(Report& report, const PriorityConfig& config, const FloodRun& run, int ways,
                         const char* name, nlohmann::json figures, const std::string& conclusion) {
  report.result.config = {{"priority_samples", config.samples},
                          {"warmup", config.plan.warmup},
                          {"repeats", config.plan.repeats},
                          {"seed", config.seed}};
  verify_runs(report.result, run.verified, run.failure, ways * (config.plan.warmup + config.plan.repeats),
              "every short kernel's output and every flood block's count");
  figures["conclusion"] = conclusion;
  report.sections[name] = std::move(figures);
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

// Host time around each short kernel beyond its own latency: the launch, two
// event records, the synchronise and the top-up of the flood (measured order
// of magnitude on an H200: tens of us).
constexpr double kHostPerSampleUs = 40.0;
// A short kernel's own run, for the estimate only (measured: a few us).
constexpr double kShortKernelUs = 5.0;
}  // namespace

// ---- the flood ---------------------------------------------------------------------------

Flood::Flood(const PriorityConfig& config, int sms, int blocks_per_sm, std::vector<cudaStream_t> streams)
    : config_(config),
      slots_(sms * blocks_per_sm),
      blocks_(slots_ * config.flood_waves),
      hold_ns_(static_cast<unsigned long long>(config.flood_block_us) * 1000ull),
      counters_(static_cast<std::size_t>(config.flood_streams)),
      stop_(1),
      streams_(std::move(streams)),
      issued_(static_cast<std::size_t>(config.flood_streams)),
      completed_(static_cast<std::size_t>(config.flood_streams)) {
  if (streams_.empty()) {
    for (int s = 0; s < config.flood_streams; ++s) {
      streams_.push_back(owned_.emplace_back(cudaStreamNonBlocking, 0).get());  // the default priority
    }
  }
  require(streams_.size() == counters_.size(), "Flood: one stream per flood stream");
  done_.resize(streams_.size());
  for (auto& ring : done_) {
    for (int k = 0; k < config.flood_depth; ++k) ring.emplace_back(cudaEventDisableTiming);
  }
}

void Flood::reset(cudaStream_t stream) {
  CUDA_CHECK(cudaMemsetAsync(counters_.data(), 0, counters_.bytes(), stream));
  CUDA_CHECK(cudaMemsetAsync(stop_.data(), 0, stop_.bytes(), stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  std::fill(issued_.begin(), issued_.end(), 0);
  std::fill(completed_.begin(), completed_.end(), 0);
  gaps_ = 0;
}

void Flood::start() {
  CUDA_CHECK(cudaEventRecord(start_.get(), streams_[0]));
  for (std::size_t s = 1; s < streams_.size(); ++s) CUDA_CHECK(cudaStreamWaitEvent(streams_[s], start_.get(), 0));
  for (std::size_t s = 0; s < streams_.size(); ++s) fill(s);
  CUDA_CHECK(cudaEventSynchronize(done_[0][0].get()));
}

void Flood::top_up() {
  for (std::size_t s = 0; s < streams_.size(); ++s) {
    while (completed_[s] < issued_[s] && event_done(ring_event(s, completed_[s]))) ++completed_[s];
    if (completed_[s] == issued_[s]) ++gaps_;
    fill(s);
  }
}

void Flood::stop(cudaStream_t stream) {
  launch_stop_flood(stream, stop_.data());
  CUDA_CHECK_LAUNCH("stop_flood");
  CUDA_CHECK(cudaEventRecord(stopped_.get(), stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  for (cudaStream_t flood : streams_) CUDA_CHECK(cudaStreamSynchronize(flood));
}

Flood::Outcome Flood::outcome() {
  std::vector<FloodCounters> counts(counters_.size());
  CUDA_CHECK(cudaMemcpyAsync(counts.data(), counters_.data(), counters_.bytes(), cudaMemcpyDeviceToHost, streams_[0]));
  CUDA_CHECK(cudaStreamSynchronize(streams_[0]));
  Outcome o;
  o.gaps = gaps_;
  const auto blocks = static_cast<unsigned long long>(blocks_);
  unsigned long long full = 0;
  for (std::size_t s = 0; s < counts.size(); ++s) {
    const FloodCounters& c = counts[s];
    const unsigned long long launched = static_cast<unsigned long long>(issued_[s]) * blocks;
    const unsigned long long index_sum = static_cast<unsigned long long>(issued_[s]) * (blocks * (blocks + 1) / 2);
    if (o.failure.empty() && (c.full + c.skipped != launched || c.index_sum != index_sum)) {
      o.failure = "flood stream " + std::to_string(s) + ": " +
                  plural(static_cast<long long>(c.full + c.skipped), "block") + " counted (index sum " +
                  std::to_string(c.index_sum) + "), " + std::to_string(launched) + " launched (index sum " +
                  std::to_string(index_sum) + ")";
    }
    if (c.skipped == 0) ++o.gaps;
    full += c.full;
  }
  const double window_ms = elapsed_between(start_.get(), stopped_.get()).count();
  if (window_ms > 0.0 && slots_ > 0) {
    o.busy = double(full) * config_.flood_block_us * 1e-3 / (window_ms * slots_);
    o.blocks_per_ms = double(full) / window_ms;
  }
  return o;
}

cudaEvent_t Flood::ring_event(std::size_t s, int kernel) const {
  return done_[s][static_cast<std::size_t>(kernel % config_.flood_depth)].get();
}

void Flood::fill(std::size_t s) {
  while (issued_[s] - completed_[s] < config_.flood_depth) {
    launch_flood(blocks_, streams_[s], hold_ns_, stop_.data(), counters_.data() + s);
    CUDA_CHECK_LAUNCH("flood_kernel");
    CUDA_CHECK(cudaEventRecord(ring_event(s, issued_[s]), streams_[s]));
    ++issued_[s];
  }
}

// ---- the short kernels ---------------------------------------------------------------------

ShortKernels::ShortKernels(const PriorityConfig& config)
    : config_(config),
      threads_per_sample_(config.short_blocks * config.short_threads),
      device_out_(static_cast<std::size_t>(config.samples) * static_cast<std::size_t>(threads_per_sample_)),
      host_out_(device_out_.size()),
      before_(static_cast<std::size_t>(config.samples)),
      after_(static_cast<std::size_t>(config.samples)) {
  for (int i = 0; i < config.short_steps; ++i) {
    steps_mul_ = steps_mul_ * kLcgMultiplier;
    steps_add_ = steps_add_ * kLcgMultiplier + kLcgIncrement;
  }
}

void ShortKernels::launch(int sample, cudaStream_t stream) {
  launch_short(config_.short_blocks, config_.short_threads, stream,
               device_out_.data() + static_cast<std::size_t>(sample) * static_cast<std::size_t>(threads_per_sample_),
               std::uint32_t(sample), config_.short_steps, config_.seed);
}

ShortKernels::WayRun ShortKernels::run_way(const ShortWay& way) {
  const cudaStream_t stream = way.stream;
  CUDA_CHECK(cudaMemsetAsync(device_out_.data(), kPoisonByte, device_out_.bytes(), stream));
  if (way.flood) {
    way.flood->reset(stream);
    way.flood->start();
  } else {
    CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  for (int i = 0; i < config_.samples; ++i) {
    const auto sample = static_cast<std::size_t>(i);
    if (way.flood) way.flood->top_up();
    CUDA_CHECK(cudaEventRecord(before_[sample].get(), stream));
    if (way.launch) {
      way.launch(i);
    } else {
      launch(i, stream);
      CUDA_CHECK_LAUNCH("short_kernel");
    }
    CUDA_CHECK(cudaEventRecord(after_[sample].get(), stream));
    CUDA_CHECK(cudaEventSynchronize(after_[sample].get()));
    busy_wait(config_.gap_us);
  }
  WayRun run;
  if (way.flood) {
    way.flood->stop(stream);
    run.flood = way.flood->outcome();
    run.failure = run.flood.failure;
  }
  for (std::size_t sample = 0; sample < before_.size(); ++sample) {
    run.latencies.push_back(elapsed_between(before_[sample].get(), after_[sample].get()));
  }
  CUDA_CHECK(cudaMemcpyAsync(host_out_.data(), device_out_.data(), device_out_.bytes(), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  const auto per_sample = static_cast<std::size_t>(threads_per_sample_);
  for (std::size_t k = 0; k < host_out_.size() && run.failure.empty(); ++k) {
    const auto sample = static_cast<std::uint32_t>(k / per_sample);
    const auto thread = static_cast<std::uint32_t>(k % per_sample);
    const std::uint32_t expected = steps_mul_ * short_start(sample, thread, config_.seed) + steps_add_;
    if (host_out_[k] != expected) {
      run.failure = "short kernel " + std::to_string(sample) + ", thread " + std::to_string(thread) + ": expected " +
                    std::to_string(expected) + ", got " + std::to_string(host_out_[k]);
    }
  }
  return run;
}

std::vector<PriorityMode> ShortKernels::run(std::span<const ShortWay> ways, FloodRun& checks) {
  struct Gathered {
    std::vector<Millis> latencies;
    std::vector<double> busy;
    std::vector<double> blocks_per_ms;
  };
  std::vector<Gathered> gathered(ways.size());
  std::vector<std::size_t> idle, flooded;
  for (std::size_t w = 0; w < ways.size(); ++w) (ways[w].flood ? flooded : idle).push_back(w);
  checks.flood_gaps = 0;
  checks.verified = true;
  checks.failure.clear();
  const int rounds = config_.plan.warmup + config_.plan.repeats;
  for (int round = 0; round < rounds; ++round) {
    std::vector<std::size_t> order = idle;
    for (std::size_t k = 0; k < flooded.size(); ++k) {
      order.push_back(flooded[(k + static_cast<std::size_t>(round)) % flooded.size()]);
    }
    for (const std::size_t w : order) {
      const WayRun run = run_way(ways[w]);
      if (!run.failure.empty() && checks.verified) {
        checks.verified = false;
        checks.failure = run.failure;
      }
      if (round < config_.plan.warmup) continue;
      Gathered& into = gathered[w];
      into.latencies.insert(into.latencies.end(), run.latencies.begin(), run.latencies.end());
      if (ways[w].flood) {
        into.busy.push_back(run.flood.busy);
        into.blocks_per_ms.push_back(run.flood.blocks_per_ms);
        checks.flood_gaps += run.flood.gaps;
      }
    }
    throw_if_interrupted("round " + std::to_string(round + 1) + " of " + std::to_string(rounds));
  }
  std::vector<PriorityMode> modes;
  for (Gathered& g : gathered) {
    PriorityMode mode;
    mode.latency = summarize(std::move(g.latencies));
    mode.flood_busy = median_of(g.busy);
    mode.flood_blocks_per_ms = median_of(g.blocks_per_ms);
    modes.push_back(std::move(mode));
  }
  return modes;
}

FloodDevice query_flood_device() {
  FloodDevice d;
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&d.least_priority, &d.greatest_priority));
  CUDA_CHECK(cudaDeviceGetAttribute(&d.sm_count, cudaDevAttrMultiProcessorCount, device));
  CUDA_CHECK(flood_blocks_per_sm(&d.flood_blocks_per_sm));
  if (d.flood_blocks_per_sm < 1) throw std::runtime_error("the flood kernel fits no SM");
  d.hardware_queues = max_connections_env().value_or(kDefaultHardwareQueues);
  return d;
}

void require_valid(const PriorityConfig& config) {
  require(config.samples > 0 && config.flood_streams > 0 && config.flood_waves > 0 && config.flood_block_us > 0 &&
              config.short_blocks > 0 && config.short_threads > 0 && config.short_steps > 0 && config.gap_us >= 0 &&
              config.plan.warmup >= 0 && config.plan.repeats > 0,
          "measure_priorities: every size must be positive");
  // Two queued kernels at least: the stop must find one still queued on each
  // stream for the check that no stream ran dry.
  require(config.flood_depth >= 2, "measure_priorities: flood_depth must be 2 or more");
}

double p99_ms(const Summary& summary) {
  std::vector<double> samples = summary.samples_ms;
  if (samples.empty()) return 0.0;
  std::sort(samples.begin(), samples.end());
  const auto rank = static_cast<std::size_t>(std::ceil(0.99 * double(samples.size())));
  return samples[std::max<std::size_t>(rank, 1) - 1];
}

// ---- the options, the estimate and the checks the flooded runs share --------------------

void add_priority_options(StageCli& cli, long long most) {
  const PriorityConfig defaults;
  cli.add_int("priority-samples", "Short kernels per mode and round (fewer: a quicker, noisier run)",
              defaults.samples, 1, most);
  cli.add_int("flood-waves",
              "Each flood kernel: this many times the blocks the GPU holds at once (a longer flood kernel "
              "is a longer wait at the default priority)",
              defaults.flood_waves, 1, kMaxFloodWaves);
  cli.add_int("flood-depth", "Flood kernels kept queued ahead on each flood stream", defaults.flood_depth, 2,
              kMaxFloodDepth);
}

PriorityConfig read_priority_options(const StageCli& cli, CommonOptions& options) {
  return {.samples = static_cast<int>(cli.get_int("priority-samples")),
          .flood_waves = static_cast<int>(cli.get_int("flood-waves")),
          .flood_depth = static_cast<int>(cli.get_int("flood-depth")),
          .plan = options.plan,
          .seed = static_cast<std::uint32_t>(options.seed)};  // the sequences' start; any value checks the same
}

double beside_flood_seconds(const PriorityConfig& p, int idle, int queued, int preferred) {
  const double flood_kernel_us = double(p.flood_waves) * p.flood_block_us;
  // At the default priority a short kernel waits, on average, for about
  // half of the flood kernels queued ahead of it (one per flood stream);
  // at the greatest, for about half a flood block.
  const double per_sample_us = kShortKernelUs + p.gap_us + kHostPerSampleUs;
  const double idle_us = p.samples * per_sample_us;
  const double queued_us = p.samples * (per_sample_us + 0.5 * p.flood_streams * flood_kernel_us);
  const double preferred_us = p.samples * (per_sample_us + 0.5 * p.flood_block_us);
  // Each flooded run also fills the GPU before its first short kernel and
  // drains the queued flood after its last.
  const double fill_drain_us = 2.0 * (p.flood_depth + 1) * flood_kernel_us;
  return competition_seconds(p.plan, idle * idle_us + queued * (queued_us + fill_drain_us) +
                                         preferred * (preferred_us + fill_drain_us));
}

std::string_view to_string(PriorityVerdict verdict) {
  return name_of(verdict, {"not_verified", "flood_gaps", "one_level", "gpu_not_full", "helps", "no_difference", "worse"});
}

PriorityVerdict judge_latency(const FloodRun& run, double flood_busy, double speedup, bool needs_two_levels) {
  if (!run.verified) return PriorityVerdict::not_verified;
  if (run.flood_gaps > 0) return PriorityVerdict::flood_gaps;
  if (needs_two_levels && run.device.least_priority == run.device.greatest_priority) return PriorityVerdict::one_level;
  if (flood_busy < kFloodFull) return PriorityVerdict::gpu_not_full;
  if (speedup >= 1.0 + kPriorityWithin) return PriorityVerdict::helps;
  if (speedup * (1.0 + kPriorityWithin) <= 1.0) return PriorityVerdict::worse;
  return PriorityVerdict::no_difference;
}

std::string failed_check_sentence(PriorityVerdict failed, const FloodRun& run, double flood_busy,
                                  const std::string& subject) {
  switch (failed) {
    case PriorityVerdict::not_verified:
      return "no conclusion about " + subject + ": a check failed (" +
             (run.failure.empty() ? std::string("verification failed") : run.failure) + ").";
    case PriorityVerdict::flood_gaps:
      return "no conclusion about " + subject + ": a flood stream ran dry " + plural(run.flood_gaps, "time") +
             " before the short kernels were done,\n  so some of them found free slots: the GPU was not full "
             "throughout (a busy host can cause this, or a flood of fewer or shorter kernels than\n  the default --flood-depth and "
             "--flood-waves: run again on a quiet machine).";
    case PriorityVerdict::one_level:
      return "this GPU offers a single stream priority ([" + std::to_string(run.device.least_priority) + ", " +
             std::to_string(run.device.greatest_priority) +
             "]): both runs used it, so there is nothing to compare;\n  the article's claim can't be shown here.";
    case PriorityVerdict::gpu_not_full:
      return "no conclusion about " + subject + ": the flood kept only " + fixed(100.0 * flood_busy, 1) +
             "% of the GPU's block slots busy (below " + percent_text(kFloodFull) +
             "),\n  so short kernels could find free slots at any priority.";
    default:
      return "";
  }
}

PriorityResult measure_priorities(const PriorityConfig& config) {
  require_valid(config);
  PriorityResult result;
  result.config = config;
  result.device = query_flood_device();
  const FloodDevice& device = result.device;
  result.flood_blocks_per_kernel = device.sm_count * device.flood_blocks_per_sm * config.flood_waves;

  Flood flood(config, device.sm_count, device.flood_blocks_per_sm);
  ShortKernels shorts(config);
  // The short kernels' two streams: the default priority, and the greatest.
  // Stream's constructor is cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, priority).
  const Stream same_stream(cudaStreamNonBlocking, 0);
  const Stream high_stream(cudaStreamNonBlocking, device.greatest_priority);
  const ShortWay ways[] = {{.stream = same_stream.get(), .flood = nullptr, .launch = {}},
                           {.stream = same_stream.get(), .flood = &flood, .launch = {}},
                           {.stream = high_stream.get(), .flood = &flood, .launch = {}}};
  std::vector<PriorityMode> modes = shorts.run(ways, result);
  result.idle = std::move(modes[0]);
  result.same_priority = std::move(modes[1]);
  result.high_priority = std::move(modes[2]);
  result.high_priority.short_priority = device.greatest_priority;
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
