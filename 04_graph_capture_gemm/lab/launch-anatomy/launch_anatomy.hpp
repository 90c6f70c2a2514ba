// The launch-anatomy subcommand's figures, verdicts and report (the chains
// are measured in launch_anatomy_measure.cpp, the article's graph in
// launch_anatomy.cpp); docs/launch_anatomy.md says what each measures, how, and why.
#pragma once

#include "04_graph_capture_gemm/lab/launch_costs.hpp"
#include "experiment/lab.hpp"

namespace csg::graphs {

enum class NodeKind { kernel, memcpy, memset, host_copy };
inline constexpr NodeKind kNodeKinds[] = {NodeKind::kernel, NodeKind::memcpy, NodeKind::memset, NodeKind::host_copy};
std::string_view to_string(NodeKind kind);
// "kernel", "memcpy", "memset", "host-copy"; nothing for another word.
std::optional<NodeKind> parse_node_kind(const std::string& word);

enum class GraphShape { line, fork };

struct AnatomyConfig {
  std::vector<NodeKind> kinds = {NodeKind::kernel, NodeKind::memcpy, NodeKind::memset, NodeKind::host_copy};
  std::vector<int> nodes = {8, 80, 800, 8000};  // --anatomy-nodes: ascending, each a multiple of `chains`
  int chains = 8;                               // the fork's lines
  int warmup = 3;
  int repeats = 21;  // --anatomy-repeats: launches timed per graph
};

struct ChainLaunch {
  NodeKind kind = NodeKind::kernel;
  GraphShape shape = GraphShape::line;
  int nodes = 0;
  Summary host;  // the cudaGraphLaunch call
  Summary gpu;   // events around the launch
};

// The article's graph, one way of building it.
enum class ArticleVariant { article, slots, breadth_first, registered, device_launch_flag };
std::string_view to_string(ArticleVariant variant);
// One line of what the variant changes: "a device slot per stream (the laboratory's default layout)".
const char* describe(ArticleVariant variant);

struct ArticleLaunch {
  ArticleVariant variant = ArticleVariant::article;
  Summary launch;   // host time of the cudaGraphLaunch call
  Summary gpu;      // the replay's GPU time
  VerifyResult check;
};

struct Anatomy {
  AnatomyConfig config;
  std::vector<ChainLaunch> chains;  // kinds x shapes x node counts
  std::vector<ArticleLaunch> article;
  bool chains_checked = true;
  std::string chains_failure;  // the first wrong slot or counter, if any
};

// Part 1: every kind of config.kinds, both shapes, every node count, in that
// order, into anatomy.chains; a wrong slot or node count clears chains_checked.
void measure_chain_launches(Anatomy& anatomy);

// NVIDIA's figure for the launch of a straight-line graph since CUDA 12.x's
// constant-time launch: about 2.5 us, plus about 1 ns per node.
inline constexpr double kNvidiaFixedUs = 2.5;
inline constexpr double kNvidiaPerNodeUs = 0.001;
// The thresholds (docs/launch_anatomy.md says why each): a kind's launch is
// constant time up to this much host time per node (a node stays 100x
// cheaper than a kernel launch on a stream);
inline constexpr double kConstantTimePerNodeUs = 0.02;
// a variant launches differently from the article's graph when their middle
// halves do not overlap and their medians are more than this far apart;
inline constexpr double kArticleLaunchNoise = 0.10;
// its replay differs on the GPU beyond this (16 ms replays vary by well under 1%);
inline constexpr double kArticleReplayNoise = 0.03;
// the fork ran its lines side by side at this many times the line's speed per node, partly at kForkPartly.
inline constexpr double kForkSideBySide = 1.5;
inline constexpr double kForkPartly = 1.2;

// The line fixed + per node x nodes through one kind and shape's figures:
// the host's time of the launch, or the GPU's time of the graph.
LineFit fit_chains(const Anatomy& anatomy, NodeKind kind, GraphShape shape, bool host);
// The first and third quartile of a figure's samples, in ms (nearest rank).
double quartile_ms(const Summary& summary, int quarter);

// The verdicts launch_anatomy.nvidia (the line of kernel nodes against
// NVIDIA's figure), .kind.<kind>, .fork.<kind> and .article; their outcomes:
// docs/launch_anatomy.md.
Verdict nvidia_verdict(const LineFit& kernel_line_host);
Verdict kind_verdict(NodeKind kind, const LineFit& line_host, const LineFit& kernel_line_host);
Verdict fork_verdict(NodeKind kind, int chains, const LineFit& line_host, const LineFit& fork_host,
                     const LineFit& line_gpu, const LineFit& fork_gpu);
Verdict article_verdict(const Anatomy& anatomy);

struct LaunchAnatomyOptions {
  CommonOptions common;
  PoolConfig pool;
  AnatomyConfig anatomy;
};

// The tables, the verdicts, and the measurements and "launch_anatomy"
// section docs/launch_anatomy.md lists; a wrong chain fails the run.
void report_launch_anatomy(const LaunchAnatomyOptions& options, const Anatomy& anatomy, Report& report);

}  // namespace csg::graphs
