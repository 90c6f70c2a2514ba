#include "04_graph_capture_gemm/lab/launch-anatomy/launch_anatomy_report.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "base/text.hpp"
#include "report/table.hpp"

namespace csg::graphs {
namespace {

const char* shape_name(GraphShape shape) { return shape == GraphShape::line ? "line" : "fork"; }

double us(const Summary& s) { return 1000.0 * s.median_ms; }

const ArticleLaunch* article_of(const Anatomy& anatomy, ArticleVariant variant) {
  for (const ArticleLaunch& a : anatomy.article) {
    if (a.variant == variant) return &a;
  }
  return nullptr;
}

std::string ns(double us_value) { return fixed(1000.0 * us_value, 1) + " ns"; }

}  // namespace

const char* to_string(NodeKind kind) {
  switch (kind) {
    case NodeKind::kernel: return "kernel";
    case NodeKind::memcpy: return "memcpy";
    case NodeKind::memset: return "memset";
    case NodeKind::host_copy: return "host-copy";
  }
  return "?";
}

std::optional<NodeKind> parse_node_kind(const std::string& word) {
  for (const NodeKind kind : kNodeKinds) {
    if (word == to_string(kind)) return kind;
  }
  return std::nullopt;
}

const char* to_string(ArticleVariant variant) {
  switch (variant) {
    case ArticleVariant::article: return "article";
    case ArticleVariant::slots: return "slots";
    case ArticleVariant::breadth_first: return "breadth_first";
    case ArticleVariant::registered: return "registered";
    case ArticleVariant::device_launch_flag: return "device_launch_flag";
  }
  return "?";
}

const char* describe(ArticleVariant variant) {
  switch (variant) {
    case ArticleVariant::article: return "as the article and the lesson build it: a device buffer per batch, depth-first, cudaMallocHost";
    case ArticleVariant::slots: return "a device slot per stream (the laboratory's default layout)";
    case ArticleVariant::breadth_first: return "issued breadth-first (a wave of copies in, kernels, copies out)";
    case ArticleVariant::registered: return "host memory malloc'd and cudaHostRegister'ed";
    case ArticleVariant::device_launch_flag: return "instantiated with cudaGraphInstantiateFlagDeviceLaunch";
  }
  return "?";
}

LineFit fit_chains(const Anatomy& anatomy, NodeKind kind, GraphShape shape, bool host) {
  std::vector<double> nodes, figures;
  for (const ChainLaunch& c : anatomy.chains) {
    if (c.kind != kind || c.shape != shape) continue;
    nodes.push_back(c.nodes);
    figures.push_back(us(host ? c.host : c.gpu));
  }
  return fit_line(nodes, figures);
}

std::string nvidia_text(const LineFit& kernel_line_host) {
  if (kernel_line_host.points == 0) return "";
  // A fixed part below zero: the node counts measured lie on no line through
  // small graphs, so only the per-node cost is quoted, and nothing matches.
  const bool has_fixed = has_fixed_part(kernel_line_host);
  const std::string measured = "a straight line of kernel nodes cost the host " +
                               (has_fixed ? fixed(kernel_line_host.fixed_us, 1) + " us + " : std::string()) +
                               ns(kernel_line_host.per_op_us) + " per node to launch" +
                               (has_fixed ? "" : " (no fixed part: the fit's is below zero)") +
                               "; NVIDIA publishes about " + fixed(kNvidiaFixedUs, 1) + " us + " +
                               ns(kNvidiaPerNodeUs) + " per node";
  if (has_fixed && kernel_line_host.per_op_us <= 2.0 * kNvidiaPerNodeUs &&
      kernel_line_host.fixed_us <= 2.0 * kNvidiaFixedUs) {
    return measured + ": this system matches it (within 2x of both).";
  }
  if (kernel_line_host.per_op_us <= kConstantTimePerNodeUs) {
    return measured + ": close to constant time (at most " + ns(kConstantTimePerNodeUs) + " per node), though " +
           fixed(kernel_line_host.per_op_us / kNvidiaPerNodeUs, 0) + "x NVIDIA's per node: a 10,000-node line costs " +
           fixed(std::max(0.0, kernel_line_host.fixed_us) + 1e4 * kernel_line_host.per_op_us, 0) + " us to launch.";
  }
  return measured + ": NOT constant time on this system (" + ns(kernel_line_host.per_op_us) +
         " per node, more than " + ns(kConstantTimePerNodeUs) + ").";
}

std::string kind_text(NodeKind kind, const LineFit& line_host, const LineFit& kernel_line_host) {
  if (line_host.points == 0) return "";
  const std::string per_node = fixed(line_host.per_op_us, 3) + " us of host time per node";
  if (line_host.per_op_us <= kConstantTimePerNodeUs) {
    return std::string(to_string(kind)) + " nodes: " + per_node + ": launched in constant time, like kernels.";
  }
  std::string text = std::string(to_string(kind)) + " nodes: " + per_node + ": not launched in constant time";
  if (kernel_line_host.points > 0 && kernel_line_host.per_op_us > 0.0) {
    text += " (" + fixed(line_host.per_op_us / kernel_line_host.per_op_us, 0) + "x a kernel node's)";
  }
  return text + "; each such node costs the launch about as much as a call on a stream would.";
}

std::string fork_text(NodeKind kind, int chains, const LineFit& line_host, const LineFit& fork_host,
                      const LineFit& line_gpu, const LineFit& fork_gpu) {
  if (line_gpu.points == 0 || fork_gpu.points == 0) return "";
  std::string text = std::string(to_string(kind)) + ", a fork into " + plural(chains, "line") + " against one line: ";
  const double line_node = line_gpu.per_op_us, fork_node = fork_gpu.per_op_us;
  const std::string figures = " (" + figure(fork_node, 3) + " against " + figure(line_node, 3) + " us per node";
  const double ratio = fork_node > 0.0 ? line_node / fork_node : 0.0;
  if (ratio >= kForkSideBySide) {
    text += "the GPU ran its nodes " + fixed(ratio, 1) + "x faster" + figures + ": the lines ran side by side)";
  } else if (ratio >= kForkPartly) {
    text += "the GPU ran its nodes " + fixed(ratio, 1) + "x faster" + figures + ": the lines partly overlapped)";
  } else if (ratio > 1.0 / kForkPartly) {
    text += "the GPU took about as long per node" + figures + ": the lines did not overlap)";
  } else {
    text += "the GPU took longer per node" + figures + ")";
  }
  // A fixed part means something only where the launch is constant time
  // (elsewhere the line through the node counts is no line) and the fit has one.
  if (line_host.per_op_us <= kConstantTimePerNodeUs && fork_host.per_op_us <= kConstantTimePerNodeUs &&
      has_fixed_part(line_host) && has_fixed_part(fork_host)) {
    text += "; the launch's fixed host cost " + fixed(fork_host.fixed_us, 1) + " against " +
            fixed(line_host.fixed_us, 1) + " us";
  }
  return text + ".";
}

double quartile_ms(const Summary& summary, int quarter) {
  if (summary.samples_ms.empty()) return summary.median_ms;
  std::vector<double> sorted = summary.samples_ms;
  std::sort(sorted.begin(), sorted.end());
  const auto rank = static_cast<std::size_t>(std::ceil(quarter / 4.0 * double(sorted.size())));
  return sorted[std::clamp<std::size_t>(rank, 1, sorted.size()) - 1];
}

std::string article_text(const Anatomy& anatomy) {
  const ArticleLaunch* base = article_of(anatomy, ArticleVariant::article);
  if (base == nullptr || base->launch.median_ms <= 0.0) return "";
  const double q1 = quartile_ms(base->launch, 1), q3 = quartile_ms(base->launch, 3);
  const double median = base->launch.median_ms;
  std::string differs;
  for (const ArticleLaunch& a : anatomy.article) {
    if (a.variant == ArticleVariant::article) continue;
    const double m = a.launch.median_ms;
    // Clear of each other: the variant's middle half all below or all above the article's.
    const bool clear = quartile_ms(a.launch, 3) < q1 || quartile_ms(a.launch, 1) > q3;
    const bool far = std::abs(m / median - 1.0) > kArticleLaunchNoise;
    if (!(clear && far)) continue;
    if (!differs.empty()) differs += "; ";
    differs += std::string(describe(a.variant)) + ": " + fixed(1000.0 * m, 0) + " us, " +
               (m < median ? fixed(median / m, 2) + "x cheaper" : fixed(m / median, 2) + "x dearer");
    const double gpu = a.gpu.median_ms, base_gpu = base->gpu.median_ms;
    if (gpu > 0.0 && base_gpu > 0.0 && std::abs(gpu / base_gpu - 1.0) > kArticleReplayNoise) {
      differs += ", but its replay took " + fixed(gpu, 2) + " ms on the GPU against " + fixed(base_gpu, 2) + " ms (" +
                 (gpu > base_gpu ? fixed(gpu / base_gpu, 2) + "x slower" : fixed(base_gpu / gpu, 2) + "x faster") + ")";
    }
  }
  const std::string noise = "the article's graph: median " + fixed(1000.0 * median, 0) + " us, middle half " +
                            fixed(1000.0 * q1, 0) + " to " + fixed(1000.0 * q3, 0) + " us";
  if (differs.empty()) {
    return "no way of building the graph changed what its launch costs beyond the noise (" + noise +
           "; a variant counts when its own middle half is clear of that one and its median more than " +
           fixed(100.0 * kArticleLaunchNoise, 0) + "% away): the laboratory's graph launches as cheaply as the article's.";
  }
  return "beyond the noise (" + noise + "), " + differs + ".";
}

void print_anatomy(std::ostream& out, const Anatomy& anatomy) {
  const AnatomyConfig& config = anatomy.config;
  out << "\nchains of small nodes, each graph launched back to back (median of " << config.repeats << " after "
      << config.warmup << " warm-up): host us of the cudaGraphLaunch call, GPU us of the graph\n";
  std::vector<std::string> headers = {"kind", "shape"};
  for (const int n : config.nodes) headers.push_back(plural(n, "node") + " host/GPU");
  headers.insert(headers.end(), {"host us/node", "host fixed us", "GPU us/node"});
  Table table(headers);
  for (const NodeKind kind : config.kinds) {
    for (const GraphShape shape : {GraphShape::line, GraphShape::fork}) {
      std::vector<std::string> row = {to_string(kind),
                                      shape == GraphShape::line ? "line" : plural(config.chains, "line")};
      for (const int n : config.nodes) {
        std::string cell = "-";
        for (const ChainLaunch& c : anatomy.chains) {
          if (c.kind == kind && c.shape == shape && c.nodes == n) {
            cell = figure(us(c.host), 1) + " / " + figure(us(c.gpu), 1);
          }
        }
        row.push_back(cell);
      }
      const LineFit host = fit_chains(anatomy, kind, shape, true), gpu = fit_chains(anatomy, kind, shape, false);
      row.push_back(host.points ? figure(host.per_op_us, 4) : "-");
      row.push_back(has_fixed_part(host) ? figure(host.fixed_us, 1) : "-");
      row.push_back(gpu.points ? figure(gpu.per_op_us, 3) : "-");
      table.add_row(row);
    }
  }
  table.print(out);
  const LineFit kernel_line = fit_chains(anatomy, NodeKind::kernel, GraphShape::line, true);
  if (std::find(config.kinds.begin(), config.kinds.end(), NodeKind::kernel) != config.kinds.end()) {
    out << nvidia_text(kernel_line) << '\n';
  }
  for (const NodeKind kind : config.kinds) {
    if (kind != NodeKind::kernel) out << kind_text(kind, fit_chains(anatomy, kind, GraphShape::line, true), kernel_line) << '\n';
  }
  for (const NodeKind kind : config.kinds) {
    out << fork_text(kind, config.chains, fit_chains(anatomy, kind, GraphShape::line, true),
                     fit_chains(anatomy, kind, GraphShape::fork, true), fit_chains(anatomy, kind, GraphShape::line, false),
                     fit_chains(anatomy, kind, GraphShape::fork, false))
        << '\n';
  }

  if (anatomy.article.empty()) return;
  out << "\nthe article's graph built " << anatomy.article.size() << " ways, launched in the same interleaved rounds (host us of one "
         "cudaGraphLaunch; the GPU ms of the replay):\n";
  Table article({"variant", "launch us", "middle half us", "GPU ms", "verified", "what changed"});
  for (const ArticleLaunch& a : anatomy.article) {
    article.add_row({to_string(a.variant), figure(1000.0 * a.launch.median_ms, 0),
                     figure(1000.0 * quartile_ms(a.launch, 1), 0) + "-" + figure(1000.0 * quartile_ms(a.launch, 3), 0),
                     figure(a.gpu.median_ms, 2), a.check.passed ? "yes" : "NO", describe(a.variant)});
  }
  article.print(out);
  out << article_text(anatomy) << '\n';
}

nlohmann::json anatomy_json(const Anatomy& anatomy) {
  const AnatomyConfig& config = anatomy.config;
  nlohmann::json doc = {{"nodes", config.nodes},
                        {"chains", config.chains},
                        {"repeats", config.repeats},
                        {"nvidia", {{"fixed_us", kNvidiaFixedUs}, {"per_node_us", kNvidiaPerNodeUs}}},
                        {"launches", nlohmann::json::array()},
                        {"fits", nlohmann::json::array()},
                        {"article", nlohmann::json::array()},
                        {"chains_checked", anatomy.chains_checked}};
  std::vector<std::string> kinds;
  for (const NodeKind kind : config.kinds) kinds.emplace_back(to_string(kind));
  doc["kinds"] = kinds;
  if (!anatomy.chains_checked) doc["chains_failure"] = anatomy.chains_failure;
  for (const ChainLaunch& c : anatomy.chains) {
    doc["launches"].push_back({{"kind", to_string(c.kind)},
                               {"shape", shape_name(c.shape)},
                               {"nodes", c.nodes},
                               {"host_us", us(c.host)},
                               {"gpu_us", us(c.gpu)}});
  }
  for (const NodeKind kind : config.kinds) {
    for (const GraphShape shape : {GraphShape::line, GraphShape::fork}) {
      const LineFit host = fit_chains(anatomy, kind, shape, true), gpu = fit_chains(anatomy, kind, shape, false);
      if (host.points == 0) continue;
      doc["fits"].push_back({{"kind", to_string(kind)},
                             {"shape", shape_name(shape)},
                             {"host_fixed_us", host.fixed_us},
                             {"host_per_node_us", host.per_op_us},
                             {"host_r2", host.r2},
                             {"gpu_fixed_us", gpu.fixed_us},
                             {"gpu_per_node_us", gpu.per_op_us}});
    }
  }
  for (const ArticleLaunch& a : anatomy.article) {
    doc["article"].push_back({{"variant", to_string(a.variant)},
                              {"launch_us", 1000.0 * a.launch.median_ms},
                              {"launch_q1_us", 1000.0 * quartile_ms(a.launch, 1)},
                              {"launch_q3_us", 1000.0 * quartile_ms(a.launch, 3)},
                              {"gpu_ms", a.gpu.median_ms},
                              {"verified", a.check.passed}});
  }
  return doc;
}

}  // namespace csg::graphs
