// The anatomy of a graph launch: what one cudaGraphLaunch costs, by the kind
// of its nodes and the shape of the graph, and why the article's graph
// costs what it does.
//
// 1. Chains of small nodes of one kind, each graph launched back to back
//    (the GPU idle before each launch, synchronised after):
//      kernel     a kernel of one thread that adds 1 to its chain's counter
//      memcpy     a 4-byte device-to-device copy from the node before's slot
//      memset     a 4-byte cudaMemsetAsync of the node's own slot
//      host-copy  a 4-byte copy from pinned host memory to the node's slot,
//                 the kind of node the article's 200 copies are
//    in two shapes of the same node count: one straight line, and a fork
//    into `chains` lines (8: the article's pool) joined at the end. For each,
//    the host time of the cudaGraphLaunch call and the GPU time of the graph
//    (events around it), and a line fixed + per node x nodes fitted through
//    each over the node counts: the host's fit for the straight line of
//    kernels is what NVIDIA's constant-time launch of straight-line graphs
//    (CUDA 12.x: about 2.5 us plus about 1 ns per node) describes.
//    Every launch is checked: the counters, the copied and the set slots
//    must hold what the chain writes (poisoned before each launch).
// 2. The article's 300-node graph launched in interleaved rounds, as the
//    article and stage 04's lesson build it (a device buffer per batch,
//    depth-first, cudaMallocHost), and with one thing changed at a time: a
//    device slot per stream (the laboratory's default layout), the
//    breadth-first issue order, host memory registered with cudaHostRegister,
//    and the exec instantiated with cudaGraphInstantiateFlagDeviceLaunch
//    (launched from the host all the same).
//    Each launch timed as the lesson times it (outputs poisoned, the GPU
//    idle, an event recorded first). Same process, same rounds, so the round
//    to round noise of a launch (which differs more between processes than
//    any of these) hits each alike. Every batch of each variant verified.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "measure/stats.hpp"
#include "batches.hpp"

namespace csg::graphs {

enum class NodeKind { kernel, memcpy, memset, host_copy };
inline constexpr NodeKind kNodeKinds[] = {NodeKind::kernel, NodeKind::memcpy, NodeKind::memset, NodeKind::host_copy};
const char* to_string(NodeKind kind);
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
const char* to_string(ArticleVariant variant);
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

}  // namespace csg::graphs
