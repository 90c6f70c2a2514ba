#include "04_graph_capture_gemm/lab/launch-chains/launch_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "base/text.hpp"
#include "report/conclusions.hpp"

namespace csg::graphs {
namespace {

std::string num(double value, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, value);
  return text;
}

double spread(const Summary& s) { return s.median_ms > 0.0 ? s.p95_ms / s.median_ms : 0.0; }

bool has_figure(const ChainFigures& chain, int figure) { return figure != 1 || chain.stream_queued_measured; }

nlohmann::json summary_json(const Summary& s, int ops) {
  return {{"median_ms", s.median_ms}, {"min_ms", s.min_ms},       {"p95_ms", s.p95_ms},
          {"max_ms", s.max_ms},       {"samples", s.samples},     {"us_per_op", per_op_us(s, ops)},
          {"p95_over_median", spread(s)}};
}

nlohmann::json fit_json(const LineFit& fit) {
  if (fit.points == 0) return nullptr;
  return {{"fixed_us", fit.fixed_us}, {"per_op_us", fit.per_op_us}, {"r2", fit.r2}, {"points", fit.points}};
}

}  // namespace

LineFit fit_line(const std::vector<double>& ops, const std::vector<double>& us) {
  LineFit fit;
  const std::size_t n = std::min(ops.size(), us.size());
  if (n < 2) return fit;
  double mx = 0.0, my = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    mx += ops[i];
    my += us[i];
  }
  mx /= double(n);
  my /= double(n);
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

std::string launch_fit_text(const LaunchCosts& costs) {
  const LineFit& node = costs.fits[4];    // graph_queued
  const LineFit& launch = costs.fits[0];  // stream_cpu
  const LineFit& paced = costs.fits[2];   // stream_end_to_end
  if (node.points == 0 || launch.points == 0) return "too few chain lengths to fit a per-operation cost (need 2)";
  std::string text = "a graph node costs " + num(node.per_op_us, 3) + " us of GPU time once queued (the graph launch " +
                     num(costs.fits[3].fixed_us, 1) + " us of host time on top); a stream launch costs " +
                     num(launch.per_op_us, 3) + " us of host time";
  if (paced.points > 0) text += " (" + num(paced.per_op_us, 3) + " us each end to end, the GPU waiting for the host)";
  if (node.per_op_us <= 0.0) return text + ".";
  const double ratio = std::max(launch.per_op_us, paced.per_op_us) / node.per_op_us;
  switch (compare_times(node.per_op_us, std::max(launch.per_op_us, paced.per_op_us))) {
    case Comparison::faster:
      return text + ": per operation, the graph is " + num(ratio, 1) + "x cheaper.";
    case Comparison::same:
      return text + ": per operation, graph nodes and stream launches cost about the same here.";
    case Comparison::slower:
      return text + ": per operation, graph nodes cost MORE than stream launches here, against the article.";
  }
  return text;
}

std::string spread_text(const LaunchCosts& costs) {
  double worst = 0.0;
  std::string where;
  for (const ChainFigures& chain : costs.chains) {
    for (int f = 0; f < kLaunchFigureCount; ++f) {
      if (!has_figure(chain, f)) continue;
      const double s = spread(figure_of(chain, f));
      if (s > worst) {
        worst = s;
        where = std::string(kLaunchFigures[f]) + " at " + plural(chain.ops, "op");
      }
    }
  }
  if (where.empty()) return "no figures";
  if (worst <= kSteadySpread) {
    return "every figure steady: p95 within " + num(kSteadySpread, 1) + "x of its median (widest: " + where + ", " +
           num(worst, 2) + "x)";
  }
  return "NOISY: " + where + " has a p95 " + num(worst, 2) + "x its median (steady means within " +
         num(kSteadySpread, 1) + "x); take its median with care";
}

std::string launch_ratio_text(const LaunchCosts& costs, const InterleavedIssue& interleaved) {
  const SteadyIssue& s = costs.steady;
  if (s.streams_issue_cpu.median_ms <= 0.0) return "";
  const double steady = s.graph_launch_cpu.median_ms / s.streams_issue_cpu.median_ms;
  std::string text = "one graph launch of the stage's work takes " + num(s.graph_launch_cpu.median_ms, 3) +
                     " ms of host time, issuing it on the streams " + num(s.streams_issue_cpu.median_ms, 3) +
                     " ms: graph / streams = " + num(steady, 2) + " back to back";
  if (interleaved.streams_issue_cpu_ms > 0.0) {
    text += " (" + num(interleaved.graph_launch_cpu_ms / interleaved.streams_issue_cpu_ms, 2) +
            " in the interleaved rounds above)";
  }
  return text;
}

void print_launch_costs(std::ostream& out, const LaunchCosts& costs, const InterleavedIssue& interleaved) {
  out << "\nwhat one launch costs: chains of empty kernels, each length timed back to back (median of "
      << repeats_for(costs.config, kShortChain) << " up to " << kShortChain << " ops, of " << costs.config.repeats
      << " above, after " << costs.config.warmup << " warm-up; us per operation)\n";
  out << "  cpu: host time of the calls; queued: GPU time behind a latch, the host out of the way; "
         "end to end: events around the chain\n";
  char line[256];
  std::snprintf(line, sizeof line, "  %8s  %10s %10s %10s   %10s %10s %10s\n", "ops", "stream cpu", "queued",
                "end2end", "graph cpu", "queued", "end2end");
  out << line;
  for (const ChainFigures& c : costs.chains) {
    const std::string queued = c.stream_queued_measured ? num(per_op_us(c.stream_queued, c.ops), 3) : "-";
    std::snprintf(line, sizeof line, "  %8d  %10.3f %10s %10.3f   %10.3f %10.3f %10.3f\n", c.ops,
                  per_op_us(c.stream_cpu, c.ops), queued.c_str(), per_op_us(c.stream_end_to_end, c.ops),
                  per_op_us(c.graph_cpu, c.ops), per_op_us(c.graph_queued, c.ops),
                  per_op_us(c.graph_end_to_end, c.ops));
    out << line;
  }
  out << "  fit fixed + per-op x ops (us):\n";
  for (int f = 0; f < kLaunchFigureCount; ++f) {
    const LineFit& fit = costs.fits[f];
    if (fit.points == 0) continue;
    std::snprintf(line, sizeof line, "    %-18s per op %8.3f  fixed %9.2f  (r^2 %.4f, %d lengths)\n", kLaunchFigures[f],
                  fit.per_op_us, fit.fixed_us, fit.r2, fit.points);
    out << line;
  }
  out << launch_fit_text(costs) << '\n' << spread_text(costs) << '\n';

  // What changes the figures: the same thing measured two ways in this run.
  const SteadyIssue& s = costs.steady;
  out << "what changes the figures (host time, same run):\n";
  auto pair = [&out](const std::string& what, double a_ms, const std::string& a, double b_ms, const std::string& b) {
    out << "  " << what << ": " << num(a_ms, 3) << " ms " << a << ", " << num(b_ms, 3) << " ms " << b << " ("
        << (compare_times(a_ms, b_ms) == Comparison::same ? "the same within 3%" : compare_phrase(a_ms, b_ms) + " " + b)
        << ")\n";
  };
  if (interleaved.graph_launch_cpu_ms > 0.0) {
    pair("one graph launch of the stage's work", s.graph_launch_cpu.median_ms, "back to back",
         interleaved.graph_launch_cpu_ms, "interleaved");
    pair("issuing it on the streams", s.streams_issue_cpu.median_ms, "back to back", interleaved.streams_issue_cpu_ms,
         "interleaved");
  }
  if (interleaved.empty_chain_end_to_end_ms) {
    for (const ChainFigures& c : costs.chains) {
      if (c.ops != interleaved.empty_chain_ops) continue;
      pair("a chain of " + std::to_string(c.ops) + " empty launches, GPU time (events around it)", c.stream_end_to_end.median_ms, "back to back",
           *interleaved.empty_chain_end_to_end_ms, "interleaved");
    }
  }
  pair(std::to_string(s.chain_ops) + " empty launches", s.blocking_chain_cpu.median_ms, "on a blocking stream",
       s.non_blocking_chain_cpu.median_ms, "on a non-blocking stream");
  out << "  module loading: CUDA_MODULE_LOADING=" << costs.module_loading << '\n';
  out << launch_ratio_text(costs, interleaved) << '\n';
  if (!costs.checked) out << "launch-cost check FAILED: " << costs.failure << '\n';
}

nlohmann::json launch_costs_json(const LaunchCosts& costs, const InterleavedIssue& interleaved) {
  nlohmann::json chains = nlohmann::json::array();
  for (const ChainFigures& c : costs.chains) {
    nlohmann::json chain = {{"ops", c.ops}};
    for (int f = 0; f < kLaunchFigureCount; ++f) {
      chain[kLaunchFigures[f]] = has_figure(c, f) ? summary_json(figure_of(c, f), c.ops) : nlohmann::json(nullptr);
    }
    chains.push_back(chain);
  }
  nlohmann::json fits = nlohmann::json::object();
  for (int f = 0; f < kLaunchFigureCount; ++f) fits[kLaunchFigures[f]] = fit_json(costs.fits[f]);
  const SteadyIssue& s = costs.steady;
  return {{"chains", chains},
          {"fits", fits},
          {"warmup", costs.config.warmup},
          {"repeats", costs.config.repeats},
          {"module_loading", costs.module_loading},
          {"checked", costs.checked},
          {"failure", costs.checked ? nlohmann::json(nullptr) : nlohmann::json(costs.failure)},
          {"steady",
           {{"graph_launch_cpu", summary_json(s.graph_launch_cpu, 1)},
            {"streams_issue_cpu", summary_json(s.streams_issue_cpu, 1)},
            {"graph_over_streams",
             s.streams_issue_cpu.median_ms > 0.0 ? s.graph_launch_cpu.median_ms / s.streams_issue_cpu.median_ms : 0.0},
            {"blocking_chain_cpu", summary_json(s.blocking_chain_cpu, s.chain_ops)},
            {"non_blocking_chain_cpu", summary_json(s.non_blocking_chain_cpu, s.chain_ops)},
            {"chain_ops", s.chain_ops}}},
          {"interleaved",
           {{"graph_launch_cpu_ms", interleaved.graph_launch_cpu_ms},
            {"streams_issue_cpu_ms", interleaved.streams_issue_cpu_ms}}},
          {"conclusion", launch_fit_text(costs)},
          {"spread", spread_text(costs)}};
}

}  // namespace csg::graphs
