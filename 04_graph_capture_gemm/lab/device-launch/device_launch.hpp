// The device-launch subcommand (kAbout in device_launch.cpp says what runs).
// Its three ways of launching N times, each timed end to end:
//   host   N host cudaGraphLaunch calls of a plain instantiation
//   tail   one host launch of a graph whose last kernel tail-launches its
//          own exec (cudaGetCurrentGraphExec) until N executions have run
//   fire   one host launch of a launcher graph whose kernel fires up to
//          fan-out children (cudaStreamGraphFireAndForget, one exec each: an
//          exec still running can't be launched again) and tail-launches
//          itself until N children have been fired
// Where the driver refuses the device-launch flag for the article's copies,
// its kernels alone are launched (the refusal is reported). Every run is
// checked: the counter must equal N and every device launch must succeed; the
// work's outputs are verified; each decision against the host's prediction.
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

// The verdicts, each from the figures alone:
// device_launch.launches: the empty graph N times, the faster device way (tail
//   or fire-and-forget) against N host launches: device_launch_faster,
//   host_launch_faster or launches_even;
// device_launch.work: the article's work N times, the same way:
//   work_device_faster, work_host_faster or work_even (the work hides the launch);
// device_launch.decision: who decides what runs next, per decision:
//   device_decides_faster, host_decides_faster or decisions_even;
// device_launch.flag: what the flag does to each graph the host launches (a
//   graph's launch dearer at kFlagRatio times and kFlagExtraUs longer,
//   cheaper the other way round): flag_costs_host (some dearer, none
//   cheaper), flag_saves_host (the other way), flag_mixed (one each), flag_free.
Verdict launches_verdict(const DeviceLaunchConfig& config, const DeviceLaunchFigures& figures);
Verdict work_verdict(const DeviceLaunchConfig& config, const DeviceLaunchFigures& figures);
Verdict decision_verdict(const DeviceLaunchConfig& config, const DeviceLaunchFigures& figures);
Verdict flag_verdict(const DeviceLaunchFigures& figures);

// Measurements: dl_empty_launch_cpu_plain, dl_empty_launch_cpu_flag,
// dl_work_launch_cpu_plain, dl_work_launch_cpu_flag (host cost of one
// launch), dl_empty_{host,tail,fire}, dl_work_{host,tail,fire} (N launches
// end to end), dl_decide_{host,device} (N decisions end to end); bounds: the
// per-launch and per-decision µs of each and dl_flag_extra_us; the verdicts;
// and the section "device_launch" (docs/device_launch.md).
void report_device_launch(const DeviceLaunchConfig& config, const DeviceLaunchFigures& figures, Report& report);

}  // namespace csg::graphs
