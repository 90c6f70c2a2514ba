// The device-launch subcommand (kAbout in device_launch.cpp says what runs):
// N launches three ways, by the host, by tail launch and by fire-and-forget,
// each timed end to end and checked; docs/device_launch.md says how.
#pragma once

#include "experiment/lab.hpp"

namespace csg::graphs {

// A launcher graph's execution may fire at most this many children.
inline constexpr int kMaxFanOut = 120;

struct DeviceLaunchConfig {
  CommonOptions common;      // the plan, --host-memory, --seed; work: the article's work at this size
  int launches = 1000;       // --launches: launches of the empty graph, and decisions
  int work_launches = 100;   // --work-launches: launches of the article's work
  int work_batches = 8;      // --work-batches
  int work_size = 128;       // --work-size: m = n = k
  int fan_out = 100;         // --fan-out: children fired per launcher execution
  int streams = 4;           // --streams: the article's pool
};

// One way of launching N times: its end-to-end GPU time and its check.
struct LaunchRun {
  Summary end_to_end;
  bool passed = true;
  std::string failure;  // the first failed check
};

struct WorkRuns {
  LaunchRun host, tail, fire;
  VerifyResult host_check, tail_check, fire_check;  // the outputs after each variant's last run
};

struct DeviceLaunchFigures {
  // The host's cost of one cudaGraphLaunch: a plain exec, the device-launch one.
  Summary empty_plain_cpu, empty_flag_cpu, work_plain_cpu, work_flag_cpu;
  LaunchRun empty_host, empty_tail, empty_fire;
  WorkRuns work;
  LaunchRun decide_host, decide_device;
  std::size_t work_nodes = 0;
  // Empty when the article's graph instantiated with the flag; else the
  // driver's refusal, and the work below is its kernels alone.
  std::string work_flag_refusal;
  bool work_kernels_only() const { return !work_flag_refusal.empty(); }
  int decide_a = 0, decide_b = 0;  // how many decisions chose A and B
};

// The options DeviceLaunchConfig names, with its defaults (--fan-out at most kMaxFanOut).
void device_launch_options(StageCli& cli);
// After parsing: the config, the common options' work set to the article's work at its size.
DeviceLaunchConfig read_device_launch(const StageCli& cli, CommonOptions& common);
// The whole run, when one launch of the article's work takes `work_seconds` on the GPU.
double device_launch_seconds(const DeviceLaunchConfig& config, double work_seconds);

// Every launch and decision, on a pool of config.streams streams and the
// article's naive kernel. Throws NoDeviceError (exit 77) where the device
// can't launch graphs: no unified addressing, or the flag refused for the
// one-kernel graph.
DeviceLaunchFigures measure_device_launch(const DeviceLaunchConfig& config);

// One way is called faster when the other takes at least this many times
// as long (per launch, per decision); closer than that they are even.
inline constexpr double kClearRatio = 1.2;
// The device-launch flag is said to cost host launches something when it
// makes one at least this many times as long and at least kFlagExtraUs longer.
inline constexpr double kFlagRatio = 1.1;
inline constexpr double kFlagExtraUs = 0.2;

// The verdicts device_launch.launches, .work, .decision and .flag, each
// from the figures alone (their outcomes: docs/device_launch.md).
Verdict launches_verdict(const DeviceLaunchConfig& config, const DeviceLaunchFigures& figures);
Verdict work_verdict(const DeviceLaunchConfig& config, const DeviceLaunchFigures& figures);
Verdict decision_verdict(const DeviceLaunchConfig& config, const DeviceLaunchFigures& figures);
Verdict flag_verdict(const DeviceLaunchFigures& figures);

// The measurements, bounds, verdicts and section "device_launch" docs/device_launch.md lists.
void report_device_launch(const DeviceLaunchConfig& config, const DeviceLaunchFigures& figures, Report& report);

}  // namespace csg::graphs
