// The device-launch subcommand's measurements: graphs launched by a kernel
// running in a graph (cudaGraphInstantiateFlagDeviceLaunch, cudaGraphUpload,
// then the device-side cudaGraphLaunch), against the host's cudaGraphLaunch.
// device_launch_report.hpp turns the figures into words and JSON.
//
// Two kinds of work are launched N times:
//   empty  a graph of one counting kernel (one thread adds 1 to a device
//          counter): the launch is all there is
//   work   the article's graph (fork, each batch's H2D, naive GEMM, D2H on
//          the pool, join) with a counting kernel after the join, at a small
//          size; where the driver refuses the device-launch flag for its
//          copies, its kernels alone (the refusal is reported)
// each three ways, end to end (events around the whole):
//   host   N host cudaGraphLaunch calls of a plain instantiation
//   tail   one host launch of a graph whose last kernel tail-launches its
//          own exec (cudaGetCurrentGraphExec) until N executions have run
//   fire   one host launch of a launcher graph whose kernel fires up to
//          fan-out children (cudaStreamGraphFireAndForget, one exec each: an
//          exec still running can't be launched again) and tail-launches
//          itself until N children have been fired
// Beside them:
//   flag   the host's cost of one cudaGraphLaunch of the same graph
//          instantiated plainly and with the device-launch flag
//   decide N decisions of which of two counting graphs (A, B) runs next,
//          from a value the last graph wrote on the device: the host copying
//          it back, synchronising and launching the chosen graph, against a
//          scheduler graph whose kernel reads it and tail-launches the chosen
//          graph, then itself
// Every run is checked: the counter must equal N (and the device's launch
// calls must all have succeeded), the work's outputs are poisoned before
// and verified after each variant, and the decisions are checked against
// the sequence the host computes (which graph ran at each step, and each
// graph's count).
#pragma once

#include <optional>
#include <string>

#include "batches.hpp"
#include "cuda/stream_pool.hpp"
#include "measure/stats.hpp"
#include "workload/gemm.hpp"

namespace csg::graphs {

// A launcher graph's execution may fire at most this many children.
inline constexpr int kMaxFanOut = 120;

struct DeviceLaunchConfig {
  int launches = 1000;       // --launches: launches of the empty graph, and decisions
  int work_launches = 100;   // --work-launches: launches of the article's work
  int work_batches = 8;      // --work-batches
  int work_size = 128;       // --work-size: m = n = k
  int fan_out = 100;         // --fan-out: children fired per launcher execution
  int streams = 4;           // --streams: the article's pool
  HostMemory host_memory = HostMemory::pinned;
  std::uint64_t seed = 1;
};

// The article's work at the config's size: work_batches GEMMs of work_size^3.
Workload device_launch_workload(const DeviceLaunchConfig& config);

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

// Throws NoDeviceError (exit 77) where the device can't launch graphs:
// no unified addressing, or the flag refused for the one-kernel graph.
DeviceLaunchFigures measure_device_launch(const DeviceLaunchConfig& config, const RepeatPlan& plan,
                                          const StreamPool& pool, const Gemm& gemm);

}  // namespace csg::graphs
