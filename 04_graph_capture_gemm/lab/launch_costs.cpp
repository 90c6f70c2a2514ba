#include "04_graph_capture_gemm/lab/launch_costs.hpp"

#include <atomic>
#include <cstdlib>
#include <numeric>

#include "04_graph_capture_gemm/lab/capture_guard.hpp"
#include "04_graph_capture_gemm/lab/graph_steps.hpp"
#include "experiment/lab.hpp"

namespace csg::graphs {
namespace {

// A launch of an empty kernel costs the host a few µs: 12 µs a launch errs long.
constexpr double kSecondsPerChainLaunch = 12e-6;

constexpr unsigned long long kLatchTimeoutNs = 2'000'000'000ULL;  // 2 s: far longer than any chain here

// Two ints of pinned host memory the latch kernel reads and writes.
class Latch {
 public:
  Latch() {
    CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&host_), 2 * sizeof(int), cudaHostAllocMapped));
    CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_), host_, 0));
  }
  ~Latch() { static_cast<void>(cudaFreeHost(host_)); }
  Latch(const Latch&) = delete;
  Latch& operator=(const Latch&) = delete;

  void hold(cudaStream_t stream) {
    std::atomic_ref<int>(host_[0]).store(0);
    std::atomic_ref<int>(host_[1]).store(0);
    launch_latch(device_, device_ + 1, kLatchTimeoutNs, stream);
  }
  void release() { std::atomic_ref<int>(host_[0]).store(1); }
  bool timed_out() const { return std::atomic_ref<int>(host_[1]).load() != 0; }

 private:
  int* host_ = nullptr;
  int* device_ = nullptr;
};

// Steady state: `warmup` untimed runs, then `repeats` timed ones back to back.
Summary back_to_back(const LaunchCostConfig& config, const std::string& what, const std::function<Millis()>& run,
                     int repeats = 0) {
  if (repeats == 0) repeats = config.repeats;
  for (int i = 0; i < config.warmup; ++i) static_cast<void>(run());
  std::vector<Millis> samples;
  samples.reserve(repeats);
  for (int i = 0; i < repeats; ++i) {
    throw_if_interrupted("the launch-cost study (" + what + ")");
    samples.push_back(run());
  }
  return summarize(std::move(samples));
}

}  // namespace

int repeats_for(const LaunchCostConfig& config, int ops) {
  return ops <= kShortChain ? 3 * config.repeats : config.repeats;
}

int steady_chain_ops(const LaunchCostConfig& config) {
  int ops = config.chains.empty() ? kShortChain : config.chains.front();
  for (const int length : config.chains) {
    if (length <= kShortChain) ops = std::max(ops, length);
  }
  return ops;
}

double launch_chains_seconds(const LaunchCostConfig& config, const RepeatPlan& plan, double pipeline_seconds) {
  double chains = 0.0;  // each length's six figures
  for (const int ops : config.chains) {
    chains += (config.warmup + repeats_for(config, ops)) * ops * kSecondsPerChainLaunch;
  }
  const double steady = (config.warmup + config.repeats) * 2.0 * pipeline_seconds;
  const double interleaved =
      (plan.warmup + plan.repeats) * (4.0 * pipeline_seconds + steady_chain_ops(config) * kSecondsPerChainLaunch);
  return chains + steady + interleaved;
}

LaunchCosts measure_launch_costs(const LaunchCostConfig& config, const ReplayComparison& article) {
  LaunchCosts costs;
  costs.config = config;
  const char* loading = std::getenv("CUDA_MODULE_LOADING");
  costs.module_loading = loading != nullptr ? loading : "LAZY (default)";
  auto fail = [&costs](const std::string& why) {
    if (costs.checked) costs.failure = why;
    costs.checked = false;
  };
  const cudaStream_t stream = article.stream;  // the article's blocking stream
  EventTimer timer;
  Latch latch;
  DeviceBuffer<unsigned long long> counter(1);
  // Events around `issue` while the latch holds the stream; the host opens it
  // once everything is queued.
  auto queued = [&](const std::function<void()>& issue, const std::string& what) {
    latch.hold(stream);
    timer.start(stream);
    issue();
    latch.release();
    const Millis time = timer.stop();
    if (latch.timed_out()) fail(what + ": the latch timed out before the host released it");
    return time;
  };

  for (const int ops : config.chains) {
    ChainFigures chain;
    chain.ops = ops;
    const std::string label = "chain of " + std::to_string(ops);
    const Graph graph = capture_on(stream, [&] { issue_chain(ops, stream); });
    if (graph.node_count() != static_cast<std::size_t>(ops)) {
      fail(label + ": the graph has " + std::to_string(graph.node_count()) + " nodes");
    }
    const GraphExec exec = GraphExec::instantiate(graph);
    CUDA_CHECK(cudaGraphUpload(exec.get(), stream));
    // The counting twin, on the stream and as a graph: each must count `ops` from zero.
    const GraphExec counting = GraphExec::instantiate(
        capture_on(stream, [&] { issue_counting_chain(counter.data(), ops, stream); }));
    auto check_count = [&](const std::string& where, const std::function<void()>& issue) {
      CUDA_CHECK(cudaMemsetAsync(counter.data(), 0, sizeof(unsigned long long), stream));
      issue();
      unsigned long long n = 0;
      CUDA_CHECK(cudaMemcpyAsync(&n, counter.data(), sizeof n, cudaMemcpyDeviceToHost, stream));
      CUDA_CHECK(cudaStreamSynchronize(stream));
      if (n != static_cast<unsigned long long>(ops)) fail(label + where + " counted " + std::to_string(n));
    };
    check_count(" on the stream", [&] { issue_counting_chain(counter.data(), ops, stream); });
    check_count(" as a graph", [&] { CUDA_CHECK(cudaGraphLaunch(counting.get(), stream)); });

    // Short chains are cheap and their host figures noisy: three times the repeats.
    const int repeats = repeats_for(config, ops);
    auto timed = [&](const std::function<Millis()>& run) { return back_to_back(config, label, run, repeats); };
    auto stream_issue = [&] { issue_chain(ops, stream); };
    auto graph_issue = [&] { CUDA_CHECK(cudaGraphLaunch(exec.get(), stream)); };
    chain.stream_cpu = timed([&] { return host_issue_time(stream, stream_issue); });
    // End to end: events around the issue, the stream idle before: the GPU waits for the host.
    chain.stream_end_to_end = timed([&] { return gpu_time(timer, stream, stream_issue); });
    if (ops <= config.latched_max_ops) {
      chain.stream_queued = timed([&] { return queued(stream_issue, label + " on the stream"); });
      chain.stream_queued_measured = true;
    }
    chain.graph_cpu = timed([&] { return host_issue_time(stream, graph_issue); });
    chain.graph_end_to_end = timed([&] { return gpu_time(timer, stream, graph_issue); });
    chain.graph_queued = timed([&] { return queued(graph_issue, label + " as a graph"); });
    costs.chains.push_back(std::move(chain));
  }
  for (int figure = 0; figure < kLaunchFigureCount; ++figure) costs.fits[figure] = fit_figure(costs.chains, figure);

  // The article's work, issued back to back: poisoned before the first run,
  // verified after the last.
  SteadyIssue& steady = costs.steady;
  steady.chain_ops = steady_chain_ops(config);
  auto article_cpu = [&](const std::string& what, const auto& issue, VerifyResult& check) {
    article.poison();
    const Summary summary = back_to_back(config, what, [&] { return host_issue_time(stream, issue); });
    check = article.verify();
    if (!check.passed) fail(what + ", back to back: " + check.message());
    return summary;
  };
  steady.graph_launch_cpu =
      article_cpu("the article's graph", [&] { article.launch(*article.exec); }, steady.graph_check);
  steady.streams_issue_cpu = article_cpu("the article's streams", article.issue_on_streams, steady.streams_check);
  // The same chain on the article's blocking stream and on a non-blocking one.
  auto chain_cpu = [&](const std::string& what, cudaStream_t on) {
    return back_to_back(config, what, [&] { return host_issue_time(on, [&] { issue_chain(steady.chain_ops, on); }); });
  };
  const Stream non_blocking(cudaStreamNonBlocking);
  steady.blocking_chain_cpu = chain_cpu("a blocking stream", stream);
  steady.non_blocking_chain_cpu = chain_cpu("a non-blocking stream", non_blocking.get());
  return costs;
}

// ---- the fits: plain arithmetic on the figures ---------------------------------

bool has_figure(const ChainFigures& chain, int figure) { return figure != 1 || chain.stream_queued_measured; }

LineFit fit_line(const std::vector<double>& ops, const std::vector<double>& us) {
  LineFit fit;
  const std::size_t n = std::min(ops.size(), us.size());
  if (n < 2) return fit;
  const double mx = std::accumulate(ops.begin(), ops.begin() + n, 0.0) / double(n);
  const double my = std::accumulate(us.begin(), us.begin() + n, 0.0) / double(n);
  double sxx = 0.0, sxy = 0.0, syy = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    sxx += (ops[i] - mx) * (ops[i] - mx);
    sxy += (ops[i] - mx) * (us[i] - my);
    syy += (us[i] - my) * (us[i] - my);
  }
  if (sxx <= 0.0) return fit;
  fit.per_op_us = sxy / sxx;
  fit.fixed_us = my - fit.per_op_us * mx;
  fit.r2 = syy > 0.0 ? (sxy * sxy) / (sxx * syy) : 1.0;
  fit.points = static_cast<int>(n);
  return fit;
}

double per_op_us(const Summary& summary, int ops) { return ops > 0 ? 1000.0 * summary.median_ms / ops : 0.0; }

const Summary& figure_of(const ChainFigures& chain, int figure) {
  const Summary* figures[kLaunchFigureCount] = {&chain.stream_cpu, &chain.stream_queued, &chain.stream_end_to_end,
                                                &chain.graph_cpu,  &chain.graph_queued,  &chain.graph_end_to_end};
  return *figures[figure];
}

LineFit fit_figure(const std::vector<ChainFigures>& chains, int figure) {
  std::vector<double> ops, us;
  for (const ChainFigures& chain : chains) {
    if (!has_figure(chain, figure)) continue;
    ops.push_back(chain.ops);
    us.push_back(1000.0 * figure_of(chain, figure).median_ms);
  }
  return fit_line(ops, us);
}

}  // namespace csg::graphs
