// The pipeline bound: the shortest time a run could take, from what each
// resource needs when it works alone. Arithmetic on plain numbers.
//
// A bound bounds only if each path is measured the way the run uses that
// resource: every kernel of the run issued on the run's own streams without
// the copies (kernels of different streams run side by side, so a pool's
// kernels can beat the one-stream kernel sum), every H2D copy alone, every
// D2H copy alone, every copy both ways at once, on those same streams, and
// the host's own time to issue the run. Then no schedule can beat any path:
//   kernels:       first H2D + every kernel (at the run's concurrency) + last D2H
//   H2D copies:    every H2D + one kernel + one D2H
//   D2H copies:    one H2D + one kernel + every D2H
//   both ways:     every copy in both directions at once (PCIe and host memory are shared)
//   host issue:    the CPU's time to queue the run's operations (nothing runs before it is queued)
//   stream order:  the busiest stream's ceil(B/S) batches, each H2D -> kernel
//                  -> D2H, one after another: a stream runs its work in order
//                  (this is why one stream gets no overlap at all)
//   busiest stream: the same, measured alone on one stream (two batches or
//                  more): there each op also waits for the one before to finish
//                  on another engine, most of the time at short batches (1000
//                  GEMMs of 128^3: the computed path 64% of the run, this 100%)
// One batch's share (the fill before the first kernel, the drain after the
// last) leaves out the timing's fixed cost: a timed region of B ops takes
// fixed + B·op, so the share is (sum of B ops - the first op alone) ÷ (B - 1),
// and 0 for one batch (sum ÷ B keeps fixed/B in each share: at a few tiny
// batches the bound is then beaten). It is capped by that resource's work
// alone on the variant's streams ÷ B, where a one-stream sum runs slow (6 D2H
// copies of 4 MiB: 0.86 ms on one stream, 0.47 ms on three).
// Napkin math at the article's sizes on an H200: kernels ~17 ms (16.0 on 8
// streams), copies 4.1 and 7.8 ms, issue 0.8 ms: compute-bound.
#pragma once

#include <string_view>

namespace csg {

// Medians, in ms, of every batch's work of each kind alone on ONE stream
// (the stage sums), and of the first batch's op of each kind alone, timed
// the same way (the timing's fixed cost plus one op). A first op of 0 means
// it was not measured: that kind's share is then the sum ÷ batches.
struct StageTimes {
  double h2d_ms = 0.0, kernel_ms = 0.0, d2h_ms = 0.0;
  double h2d_first_ms = 0.0, kernel_first_ms = 0.0, d2h_first_ms = 0.0;
};

// One batch's share of a kind of work (see above); 0 for one batch (the bound
// then leaves the fill, the drain and the stream order out and is loose there).
double one_batch_share(double sum_ms, double first_ms, int batches);

// Medians, in ms, of what each resource needs alone, measured on the
// variant's own streams; host_issue_ms 0 where the variant's issue time was
// not measured (it then plays no part).
struct ResourceTimes {
  double kernels_ms = 0.0, h2d_ms = 0.0, d2h_ms = 0.0;
  double both_ways_ms = 0.0;   // every H2D and D2H at once
  double host_issue_ms = 0.0;  // the host's time to issue the variant's run
  // The busiest stream's batches alone on one stream; 0 where not measured.
  double busiest_stream_ms = 0.0;
};

// The paths, in the order the bound considers them (the first of equal paths wins).
enum class BoundPath { kernels, h2d, d2h, both_ways, host_issue, stream_order, busiest_stream };
inline constexpr BoundPath kBoundPaths[] = {BoundPath::kernels,    BoundPath::h2d,          BoundPath::d2h,
                                            BoundPath::both_ways,  BoundPath::host_issue,   BoundPath::stream_order,
                                            BoundPath::busiest_stream};
// Their names in tables and the JSON's "limited_by": "kernels", "H2D copies", ...
std::string_view to_string(BoundPath path);

// The regime a bound's limiting path puts the run in.
enum class Regime { compute_bound, pcie_bound, launch_bound, stream_order_bound };
// "compute-bound", "PCIe-bound", "launch-bound", "stream-order-bound".
std::string_view to_string(Regime regime);

struct PipelineBound {
  double kernel_path_ms = 0.0;
  double h2d_path_ms = 0.0;
  double d2h_path_ms = 0.0;
  double both_ways_ms = 0.0;
  double host_issue_ms = 0.0;
  double stream_order_ms = 0.0;  // 0 where the variant does not run batch i on stream i % streams
  double busiest_stream_ms = 0.0;  // ResourceTimes::busiest_stream_ms
  double h2d_one_ms = 0.0, kernel_one_ms = 0.0, d2h_one_ms = 0.0;  // one batch's op of each kind (above)
  double bound_ms = 0.0;
  BoundPath limited_by = BoundPath::kernels;  // the path that sets the bound
};

// The length of one path of `bound`, in ms (0 for a path it leaves out).
double path_ms(const PipelineBound& bound, BoundPath path);

// `streams`: the variant runs batch i on stream i % streams, launched from the
// host as the one-stream sums were (the pool), which adds the stream-order path;
// 0 for a variant that spreads a batch over several streams or starts its ops
// faster than the host launches them (a graph replay: the sums' shares are then
// the launch rate, no floor for it). std::invalid_argument for no batch or streams < 0.
PipelineBound pipeline_bound(const ResourceTimes& alone, const StageTimes& one_stream, int batches, int streams);

// ceil(batches / streams): the batches of the busiest stream, batch i on stream i % streams.
long long busiest_stream_batches(long long batches, int streams);

// The regime a bound's limiting path puts the run in.
Regime regime_of(const PipelineBound& bound);

// 100 × bound ÷ achieved: how close a run came to its bound. Above 100 is a
// run faster than its bound: a bug of the bound unless within the noise.
double percent_of_bound(const PipelineBound& bound, double achieved_ms);

// The noise a bound is allowed on a run, the ratio of two medians that may
// each be off: the path's median above its fastest round (median / min - 1: a
// run may reach that round), the run's above its own fastest ((median - min) /
// median), and a timed region's jitter of about a µs at each end
// (kTimingJitterMs over the run). Added, but at least `floor` (2%).
inline constexpr double kTimingJitterMs = 0.002;
double bound_tolerance(double achieved_median_ms, double achieved_min_ms, double path_median_ms,
                       double path_min_ms, double floor = 0.02);

}  // namespace csg
