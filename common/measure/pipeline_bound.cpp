#include "measure/pipeline_bound.hpp"

#include <algorithm>
#include <stdexcept>

#include "base/enum_names.hpp"
#include "measure/stats.hpp"

namespace csg {

std::string_view to_string(BoundPath path) {
  return name_of(path, {"kernels", "H2D copies", "D2H copies", "PCIe both ways", "host issue", "stream order",
                        "busiest stream"});
}

std::string_view to_string(Regime regime) {
  return name_of(regime, {"compute-bound", "PCIe-bound", "launch-bound", "stream-order-bound"});
}

double one_batch_share(double sum_ms, double first_ms, int batches) {
  if (batches < 1) throw std::invalid_argument("one_batch_share: batches must be at least 1");
  if (first_ms <= 0.0) return sum_ms / batches;  // the first op alone was not measured
  if (batches == 1) return 0.0;                  // the sum is the first op: nothing but it to share
  return std::max(0.0, sum_ms - first_ms) / (batches - 1);
}

PipelineBound pipeline_bound(const ResourceTimes& alone, const StageTimes& one_stream, int batches, int streams) {
  if (batches < 1) throw std::invalid_argument("pipeline_bound: batches must be at least 1");
  if (streams < 0) throw std::invalid_argument("pipeline_bound: streams must not be negative");
  // The smaller of two estimates of one op, each too long in its own way
  // (see the header): the one-stream share, and the resource alone ÷ batches.
  auto one_op = [batches](double sum_ms, double first_ms, double alone_ms) {
    const double share = one_batch_share(sum_ms, first_ms, batches);
    return alone_ms > 0.0 ? std::min(share, alone_ms / batches) : share;
  };
  const double h2d_one = one_op(one_stream.h2d_ms, one_stream.h2d_first_ms, alone.h2d_ms);
  const double kernel_one = one_op(one_stream.kernel_ms, one_stream.kernel_first_ms, alone.kernels_ms);
  const double d2h_one = one_op(one_stream.d2h_ms, one_stream.d2h_first_ms, alone.d2h_ms);

  PipelineBound bound{.kernel_path_ms = h2d_one + alone.kernels_ms + d2h_one,
                      .h2d_path_ms = alone.h2d_ms + kernel_one + d2h_one,
                      .d2h_path_ms = h2d_one + kernel_one + alone.d2h_ms,
                      .both_ways_ms = alone.both_ways_ms,
                      .host_issue_ms = alone.host_issue_ms,
                      .h2d_one_ms = h2d_one,
                      .kernel_one_ms = kernel_one,
                      .d2h_one_ms = d2h_one};
  if (streams > 0) bound.stream_order_ms = double(busiest_stream_batches(batches, streams)) * (h2d_one + kernel_one + d2h_one);
  // At one batch a stream the busiest stream's chain is the fill and drain
  // the other paths already hold, and a run of it alone is mostly the timed
  // region's fixed cost, which the pool's run shares out differently (on an
  // H100, one batch: 0.024 ms alone against the pool's 0.017 ms): left out.
  if (streams == 0 || busiest_stream_batches(batches, streams) > 1) bound.busiest_stream_ms = alone.busiest_stream_ms;
  bound.bound_ms = bound.kernel_path_ms;
  bound.limited_by = BoundPath::kernels;
  for (const BoundPath path : kBoundPaths) {
    if (path_ms(bound, path) > bound.bound_ms) {  // strictly longer: the first of equal paths wins
      bound.bound_ms = path_ms(bound, path);
      bound.limited_by = path;
    }
  }
  return bound;
}

double path_ms(const PipelineBound& bound, BoundPath path) {
  switch (path) {
    case BoundPath::kernels: return bound.kernel_path_ms;
    case BoundPath::h2d: return bound.h2d_path_ms;
    case BoundPath::d2h: return bound.d2h_path_ms;
    case BoundPath::both_ways: return bound.both_ways_ms;
    case BoundPath::host_issue: return bound.host_issue_ms;
    case BoundPath::stream_order: return bound.stream_order_ms;
    case BoundPath::busiest_stream: return bound.busiest_stream_ms;
  }
  return 0.0;
}

long long busiest_stream_batches(long long batches, int streams) {
  if (batches < 1 || streams < 1) throw std::invalid_argument("busiest_stream_batches: needs a batch and a stream");
  return (batches + streams - 1) / streams;  // stream 0 runs batches 0, S, 2S, ...
}

Regime regime_of(const PipelineBound& bound) {
  switch (bound.limited_by) {
    case BoundPath::kernels: return Regime::compute_bound;
    case BoundPath::host_issue: return Regime::launch_bound;
    case BoundPath::stream_order:
    case BoundPath::busiest_stream: return Regime::stream_order_bound;
    case BoundPath::h2d:
    case BoundPath::d2h:
    case BoundPath::both_ways: break;
  }
  return Regime::pcie_bound;
}

double percent_of_bound(const PipelineBound& bound, double achieved_ms) {
  return achieved_ms > 0.0 ? 100.0 * bound.bound_ms / achieved_ms : 0.0;
}

double bound_tolerance(double achieved_median_ms, double achieved_min_ms, double path_median_ms,
                       double path_min_ms, double floor) {
  const double path = path_min_ms > 0.0 && path_median_ms > path_min_ms ? path_median_ms / path_min_ms - 1.0 : 0.0;
  const double jitter = achieved_median_ms > 0.0 ? kTimingJitterMs / achieved_median_ms : 0.0;
  return std::max(floor, relative_spread(achieved_median_ms, achieved_min_ms) + path + jitter);
}

}  // namespace csg
