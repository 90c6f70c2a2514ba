#include "priorities.hpp"

namespace csg::pool {
namespace {

// Host time around each short kernel beyond its own latency: the launch, two
// event records, the synchronise and the top-up of the flood (measured order
// of magnitude on an H200: tens of us).
constexpr double kHostPerSampleUs = 40.0;
// A short kernel's own run, for the estimate only (measured: a few us).
constexpr double kShortKernelUs = 5.0;
// Setting up: streams, events, buffers, the first launch of each kernel.
constexpr double kSetupSeconds = 0.05;
// Per timed or warm-up run of a contention variant: launch, events, the check.
constexpr double kContentionRunOverheadUs = 60.0;

bool on(const StageCli& cli, const std::string& name) { return cli.get_string(name) == "on"; }

}  // namespace

double concurrency(const ContentionVariant& variant) {
  if (variant.together.median_ms <= 0.0) return 0.0;
  return 2.0 * variant.alone.median_ms / variant.together.median_ms;
}

void add_stream_extras_options(StageCli& cli) {
  cli.add_choice("priorities",
                 "Short kernels beside a flood of long ones, at the default and at the greatest stream priority",
                 "on", {"on", "off"});
  cli.add_int("priority-samples", "Short kernels per mode and round of --priorities (fewer: a quicker, noisier run)",
              PriorityConfig{}.samples, 1, kMaxPrioritySamples);
  cli.add_choice("contention",
                 "Two streams' kernels with little and with much shared memory per block: side by side or queued",
                 "on", {"on", "off"});
}

StreamExtrasConfig read_stream_extras_options(const StageCli& cli) {
  StreamExtrasConfig config;
  config.priorities = on(cli, "priorities");
  config.priority_config.samples = static_cast<int>(cli.get_int("priority-samples"));
  config.contention = on(cli, "contention");
  return config;
}

double stream_extras_seconds(const StreamExtrasConfig& config) {
  double seconds = 0.0;
  if (config.priorities) {
    const PriorityConfig& p = config.priority_config;
    const double flood_kernel_us = double(p.flood_waves) * p.flood_block_us;
    // At the default priority a short kernel waits, on average, for about
    // half of the flood kernels queued ahead of it (one per flood stream);
    // at the greatest, for about half a flood block.
    const double per_sample_us = kShortKernelUs + p.gap_us + kHostPerSampleUs;
    const double idle_us = p.samples * per_sample_us;
    const double same_us = p.samples * (per_sample_us + 0.5 * p.flood_streams * flood_kernel_us);
    const double high_us = p.samples * (per_sample_us + 0.5 * p.flood_block_us);
    // Each flooded run also fills the GPU before its first short kernel and
    // drains the queued flood after its last.
    const double fill_drain_us = 2.0 * (p.flood_depth + 1) * flood_kernel_us;
    const double round_us = idle_us + same_us + high_us + 2.0 * fill_drain_us;
    seconds += kSetupSeconds + (p.plan.warmup + p.plan.repeats) * round_us * 1e-6;
  }
  if (config.contention) {
    const ContentionConfig& c = config.contention_config;
    // Per round: each of the two variants alone (one kernel time) and on two
    // streams (up to two kernel times).
    const double round_us = 2.0 * (3.0 * c.kernel_us + 2.0 * kContentionRunOverheadUs);
    seconds += kSetupSeconds + (c.plan.warmup + c.plan.repeats) * round_us * 1e-6;
  }
  return seconds;
}

}  // namespace csg::pool
