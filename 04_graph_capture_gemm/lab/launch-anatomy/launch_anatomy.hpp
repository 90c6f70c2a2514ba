// The launch-anatomy subcommand's figures, verdicts and report (the chains
// are measured in launch_anatomy_measure.cpp, the article's graph in
// launch_anatomy.cpp); docs/launch_anatomy.md says what each measures, how, and why.
#pragma once

#include "04_graph_capture_gemm/lab/launch_costs.hpp"
#include "04_graph_capture_gemm/lab/options.hpp"
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
// A node kind is launched in constant time when each node adds at most this
// much host time: a 10,000-node line then costs at most 0.2 ms more than an
// empty one, and a node stays 100x cheaper than a kernel launch on a stream.
inline constexpr double kConstantTimePerNodeUs = 0.02;
// A variant of the article's graph launches differently from the article's
// own only when the middle halves of their launches do not overlap and their
// medians are more than this far apart. (A median merely outside the
// article's middle half flipped from cheaper to dearer between two processes
// on the H200.)
inline constexpr double kArticleLaunchNoise = 0.10;

// A variant's replay differs on the GPU from the article's when their
// medians are more than this far apart (16 ms replays vary by well under 1%).
inline constexpr double kArticleReplayNoise = 0.03;
// The fork's GPU time per node against the line's: at least kForkSideBySide
// times faster, the lines ran side by side; at least kForkPartly, partly.
inline constexpr double kForkSideBySide = 1.5;
inline constexpr double kForkPartly = 1.2;

// The line fixed + per node x nodes through one kind and shape's figures:
// the host's time of the launch, or the GPU's time of the graph.
LineFit fit_chains(const Anatomy& anatomy, NodeKind kind, GraphShape shape, bool host);
// The first and third quartile of a figure's samples, in ms (nearest rank).
double quartile_ms(const Summary& summary, int quarter);

// "launch_anatomy.nvidia": the straight line of kernel nodes against
// NVIDIA's figure: "matches" (within 2x of both), "close_to_constant_time"
// (per node at most kConstantTimePerNodeUs) or "not_constant_time".
Verdict nvidia_verdict(const LineFit& kernel_line_host);
// "launch_anatomy.kind.<kind>": one kind's host cost per node,
// "constant_time" or "not_constant_time" (against the kernel's).
Verdict kind_verdict(NodeKind kind, const LineFit& line_host, const LineFit& kernel_line_host);
// "launch_anatomy.fork.<kind>": the fork of `chains` lines against the line,
// GPU time per node: "side_by_side", "partly_overlapped", "no_overlap" or
// "longer"; and the launch's fixed host cost of each where both are constant time.
Verdict fork_verdict(NodeKind kind, int chains, const LineFit& line_host, const LineFit& fork_host,
                     const LineFit& line_gpu, const LineFit& fork_gpu);
// "launch_anatomy.article": each variant of the graph against the article's
// own: "no_difference" beyond the noise, or "differs" (which launched cheaper
// or dearer and by how much, and whether such a variant's replay was slower
// or faster on the GPU).
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
