// "Open 1000 streams when the PCIe link is full after 5, and the other 995
// only wait": the pool from 1 to 1,024 streams on short batches, so that
// per-stream costs show, each size with its own bound; and the mechanism
// beside the time: the host's time to issue each run (N streams cost N waits
// on the fork event and N join events) and the hardware queues they share.
#pragma once

#include "03_stream_pool_gemm/measurements.hpp"
#include "experiment/lab.hpp"

namespace csg::pool {

struct StreamCountConfig {
  std::vector<int> sizes = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024};  // ascending
  int batches = 1000;
  int size = 128;  // m = n = k
  Workload workload() const { return Workload{batches, GemmShape{size, size, size}}; }
};

// --count-sweep LIST (pool sizes, each at most once), --count-batches N, --count-size N.
void add_stream_count_options(StageCli& cli);
// After cli.parse(): the sizes ascending. Throws UsageError for a bad list.
StreamCountConfig read_stream_count_options(const StageCli& cli);

// Seconds the sweep takes at `rates` (each pool run at least as long as the
// host needs to issue it, and each pool size's bound runs), for the estimate.
double stream_count_seconds(const StreamCountConfig& config, const RepeatPlan& plan, const Rates& rates);

// One pool size as measured: its time, the host's time to issue it, and what
// its bound says limits it.
struct CountPoint {
  int streams = 0;
  double ms = 0.0;
  double issue_ms = 0.0;
  std::optional<BoundPath> limited_by;  // nothing without a bound
};

// Why the time stops improving or gets worse ("count_sweep.mechanism"),
// from the figures: when the largest pool is slower than the best by more
// than kWorseBy, whether the host's issue time grew by as much as the run
// lost and the host paced it (its issue at least kHostPaced of the run, or
// the bound limited by it): "host_paced", the host spends per added stream
// what `per_stream_us` says; else "gpu_side", the rest lost where streams
// share `queues` hardware queues; otherwise "only_waited". Throws
// std::invalid_argument for no points.
inline constexpr double kHostPaced = 0.9;
inline constexpr double kIssueShareOfLoss = 0.5;
Verdict mechanism_verdict(std::vector<CountPoint> points, int queues);

struct CountSweepConfig {
  CommonOptions common;  // its workload: --count-batches x --count-size^3
  StreamCountConfig count;
};

// The sweep as measured (`runs`: its pool_sweep entries, each with its own
// bound): the table, where time stops improving ("count_sweep.plateau"), the
// mechanism, any pool size that failed its verification or beat its bound,
// and the JSON's "stream_count" object: the workload, one point per pool
// size (median, min, p95, host issue, bound, limited_by, verified, digest),
// "verified", and the plateau, conclusion and mechanism.
void report_count_sweep(const CountSweepConfig& config, const PoolMeasurements& runs, Report& report);

}  // namespace csg::pool
