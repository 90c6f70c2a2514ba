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
//   stream order:  the busiest stream's batches, each H2D -> kernel -> D2H, one
//                  after another: a stream runs its work in order, so with S
//                  streams ceil(B/S) batches' ops can't overlap each other
//                  (this is why one stream gets no overlap at all)
//   busiest stream: the same, measured: the busiest stream's ceil(B/S) batches
//                  run alone on one stream (where that is two batches or more:
//                  one batch alone is mostly the timed region's fixed cost). The stream order above adds up one
//                  batch's shares of the one-stream sums, where ops of one kind
//                  follow each other back to back; on a stream that alternates
//                  H2D, kernel and D2H each op also waits for the one before
//                  to finish on another engine (a few us each), which at short
//                  batches is most of the time: at 1000 GEMMs of 128^3 the
//                  computed path left one stream at 64% of its bound, the
//                  measured one at 100%.
// One batch's share (the fill before the first kernel, the drain after the
// last) is its op's own time on one stream, without the timing's fixed cost:
// a timed region of B ops takes fixed + B·op (the fixed part is the host
// issuing the first op after the start event), so the share is
// (sum of B ops - the first op alone) ÷ (B - 1), and 0 for one batch. Taking
// the sum ÷ B instead keeps a fixed/B of some µs in each share: at a few
// batches of tiny GEMMs that is as long as the run, and the bound is beaten.
// The share is then capped by that resource's work alone on the variant's
// streams ÷ B: at a few batches a one-stream sum can run slow (6 D2H copies
// of 4 MiB took 0.86 ms on one stream and 0.47 ms on three), and a share of
// it made the drain twice as long as a copy and the bound 5% too long.
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

// One batch's share of a kind of work (see above): the sum of `batches` ops
// less the first op alone, over the other batches-1; 0 for one batch (its
// op can't be told apart from the timing's fixed cost, so the bound leaves
// the fill, the drain and the stream order out and is loose there).
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
// Their names in tables and the JSON's "limited_by": "kernels", "H2D copies",
// "D2H copies", "PCIe both ways", "host issue", "stream order", "busiest stream".
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

// `streams`: the variant runs batch i's H2D, kernel and D2H on stream
// i % streams, launched from the host as the one-stream sums were (the
// pool), which adds the stream-order path; 0 for a variant that spreads one
// batch over several streams (one stream per engine) or starts its ops
// faster than the host launches them (a graph replay: at ops shorter than a
// launch the sums' shares are the launch rate, no floor for it). Throws
// std::invalid_argument for fewer than one batch or negative streams.
PipelineBound pipeline_bound(const ResourceTimes& alone, const StageTimes& one_stream, int batches, int streams);

// How many batches the busiest of `streams` streams runs when batch i runs
// on stream i % streams: ceil(batches / streams).
long long busiest_stream_batches(long long batches, int streams);

// The regime a bound's limiting path puts the run in: compute-bound
// (kernels), PCIe-bound (a copy path), launch-bound (host issue) or
// stream-order-bound (too few streams for the work to overlap).
Regime regime_of(const PipelineBound& bound);

// 100 × bound ÷ achieved: how close a run came to its bound. Above 100 is a
// run faster than its bound: a bug of the bound unless within the noise.
double percent_of_bound(const PipelineBound& bound, double achieved_ms);

// The noise a bound is allowed on a run. The figure is the ratio of two
// medians, the limiting path's over the run's, and each may be off:
//  - the path's median may stand above its fastest round (median / min - 1:
//    a run that reaches the path's fastest round beats the median by that);
//  - the run's median above its own fastest ((median - min) / median);
//  - at tens of microseconds, a timed region's start and end each move by
//    about a microsecond whatever the work (kTimingJitterMs over the run).
// Added, but at least `floor` (2%: the spread of a few quiet rounds
// understates the machine's).
inline constexpr double kTimingJitterMs = 0.002;
double bound_tolerance(double achieved_median_ms, double achieved_min_ms, double path_median_ms,
                       double path_min_ms, double floor = 0.02);

}  // namespace csg
